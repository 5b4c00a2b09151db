package io.engram.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.model.embed.CachingEmbedder;
import io.engram.model.embed.EmbedderOptions;
import io.engram.model.embed.EmbedderOptions.LongTextMode;
import io.engram.model.embed.EmbedderOptions.Pooling;
import io.engram.model.embed.Embedding;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.embed.OnnxEmbedder;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "embed", mixinStandardHelpOptions = true,
        description = {"Embed each line of standard input with the local ONNX model.",
                "Prints one JSON line per text: {sha256, dim, tokens, truncated, windows, embedding}."})
final class EmbedCommand implements Callable<Integer> {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Spec
    CommandSpec spec;

    @Option(names = "--model", converter = ExistingPath.class, paramLabel = "PATH", description = "A sentence-transformers ONNX model (default: all-MiniLM-L6-v2 from the classpath).")
    Path model;

    @Option(names = "--tokenizer", converter = ExistingPath.class, paramLabel = "PATH", description = "The model's tokenizer.json (default: tokenizer.json beside --model).")
    Path tokenizer;

    @Option(names = "--quantized", description = "The int8 all-MiniLM-L6-v2: faster, smaller, one row per call for reproducible vectors.")
    boolean quantized;

    @Option(names = "--dim", paramLabel = "N", description = "Matryoshka truncation to N dimensions, re-normalised.")
    int dimension;

    @Option(names = "--pooling", paramLabel = "MODE", description = "mean or cls (default: ${DEFAULT-VALUE}).")
    Pooling pooling = Pooling.MEAN;

    @Option(names = "--window", paramLabel = "TOKENS", description = "The model's window, special tokens included (default: ${DEFAULT-VALUE}).")
    int window = EmbedderOptions.defaults().windowTokens();

    @Option(names = "--long-text", paramLabel = "MODE", description = "window_average or truncate (default: ${DEFAULT-VALUE}).")
    LongTextMode longText = LongTextMode.WINDOW_AVERAGE;

    @Option(names = "--query", description = "Embed the lines as queries (the query prefix applies).")
    boolean query;

    @Option(names = "--query-prefix", paramLabel = "TEXT", description = "Prefix of queries, e.g. 'query: ' for e5 models.")
    String queryPrefix = "";

    @Option(names = "--document-prefix", paramLabel = "TEXT", description = "Prefix of documents, e.g. 'passage: '.")
    String documentPrefix = "";

    @Option(names = "--batch", paramLabel = "ROWS", description = "Rows per inference call (default: 32, 1 with --quantized).")
    Integer batch;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        EmbedderOptions base = quantized ? EmbeddingModel.ALL_MINILM_L6_V2_Q.options() : EmbedderOptions.defaults();
        EmbedderOptions options = base.withWindow(window, longText).withPooling(pooling).withDimension(dimension)
                .withPrefixes(queryPrefix, documentPrefix);
        if (batch != null) {
            options = options.withBatch(batch, Math.max(options.maxBatchTokens(), batch * window));
        }
        List<String> lines = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lines.add(line);
            }
        }
        try (CachingEmbedder embedder = new CachingEmbedder(open(options), 10_000)) {
            List<Embedding> embeddings = query ? embedder.embedQueries(lines) : embedder.embedDocuments(lines);
            for (int i = 0; i < lines.size(); i++) {
                Embedding e = embeddings.get(i);
                ObjectNode json = JSON.createObjectNode();
                json.put("sha256", CachingEmbedder.sha256Hex(lines.get(i)));
                json.put("dim", e.dimension());
                json.put("tokens", e.tokens());
                json.put("truncated", e.truncated());
                json.put("windows", e.windows());
                ArrayNode vector = json.putArray("embedding");
                for (float v : e.vector()) {
                    vector.add(v);
                }
                out.println(JSON.writeValueAsString(json));
            }
        }
        out.flush();
        return 0;
    }

    private OnnxEmbedder open(EmbedderOptions options) {
        if (model != null) {
            Path tokenizerJson = tokenizer != null ? tokenizer : model.resolveSibling("tokenizer.json");
            return OnnxEmbedder.fromFiles(model, tokenizerJson, options);
        }
        return quantized ? EmbeddingModel.ALL_MINILM_L6_V2_Q.open(options) : EmbeddingModel.ALL_MINILM_L6_V2.open(options);
    }
}
