package io.engram.bench.footprint;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.jobs.PipelineConfig;
import io.engram.launcher.ExistingPath;
import io.engram.model.embed.Embedder;
import io.engram.model.embed.Embedding;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.embed.Vectors;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.ServiceOptions;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.IntStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Bytes per document and k-NN recall of each {@link FootprintLayout}, with the default model's vectors of real texts:
 * the same records written through the store into one index per layout on an embedded node, each merged to one
 * segment; recall@k of the k-NN query against exact float cosine over the same vectors, for held-out query texts.
 */
@Command(name = "footprint", mixinStandardHelpOptions = true,
        description = "Bytes per document and k-NN recall of each vector layout of the index, with the default model's vectors.")
public final class BenchFootprintCommand implements Callable<Integer> {

    private static final String TENANT = "footprint";
    private static final Instant T0 = Instant.parse("2026-11-01T10:00:00Z");

    @Spec
    CommandSpec spec;

    @Option(names = "--data", converter = ExistingPath.class, paramLabel = "FILE",
            description = "LoCoMo JSON whose turns are the texts (default: the paragraphs of the Markdown files under data/).")
    Path data;

    @Option(names = "--documents", paramLabel = "N", description = "Documents per index (default: ${DEFAULT-VALUE}).")
    int documents = 20_000;

    @Option(names = "--queries", paramLabel = "N", description = "Held-out query texts (default: ${DEFAULT-VALUE}).")
    int queries = 200;

    @Option(names = "--k", paramLabel = "K", description = "Top K of the k-NN query and of recall@K (default: ${DEFAULT-VALUE}).")
    int k = 10;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter progress = spec.commandLine().getErr();
        if (documents < 1 || queries < 1 || k < 1) {
            throw new ParameterException(spec.commandLine(), "--documents, --queries and --k must be at least 1");
        }
        FootprintCorpus corpus = FootprintCorpus.of(data != null ? FootprintCorpus.locomoTurns(data)
                : FootprintCorpus.paragraphs(Path.of(System.getProperty("engram.root", "."), "data")), documents, queries);
        EmbeddingModel model = PipelineConfig.defaults().embeddingModel();
        progress.printf(Locale.ROOT, "embedding %d documents and %d queries with %s ...%n", corpus.documents().size(),
                corpus.queries().size(), model.id());
        progress.flush();
        List<MemoryRecord> records = new ArrayList<>();
        List<float[]> queryVectors = new ArrayList<>();
        try (Embedder embedder = model.open()) {
            for (int from = 0; from < corpus.documents().size(); from += 32) {
                List<String> batch = corpus.documents().subList(from, Math.min(corpus.documents().size(), from + 32));
                List<Embedding> vectors = embedder.embedDocuments(batch);
                for (int i = 0; i < batch.size(); i++) {
                    records.add(MemoryRecord.of("fp-" + (from + i), TENANT, RecordType.TURN, batch.get(i),
                            T0.plusSeconds(from + i)).embedding(vectors.get(i).vector()).session("s-" + (from + i) / 100)
                            .role("user").tokens(vectors.get(i).tokens()).build());
                }
            }
            embedder.embedQueries(corpus.queries()).forEach(e -> queryVectors.add(e.vector()));
        }
        List<List<String>> exact = queryVectors.stream().map(q -> exactTop(records, q)).toList();
        ArrayNode results = new ObjectMapper().createArrayNode();
        try (EmbeddedOpenSearch node = EmbeddedOpenSearch.start(ServiceOptions.ephemeral())) {
            for (FootprintLayout layout : FootprintLayout.ALL) {
                progress.println("layout " + layout.name() + " ...");
                progress.flush();
                results.add(report(layout.measure(node.httpUrl(), model.id(), records, queryVectors, k), exact));
            }
        }
        ObjectNode all = new ObjectMapper().createObjectNode().put("model", model.id())
                .put("texts", data != null ? data.getFileName().toString() : "data/")
                .put("documents", records.size()).put("queries", queryVectors.size()).put("k", k);
        all.set("layouts", results);
        out.println(all.toPrettyString());
        return 0;
    }

    /** The ids of the {@code k} records nearest {@code query} by exact cosine. */
    private List<String> exactTop(List<MemoryRecord> records, float[] query) {
        double[] cosines = records.stream().mapToDouble(r -> Vectors.cosine(r.embedding(), query)).toArray();
        return IntStream.range(0, records.size()).boxed().sorted(Comparator.comparingDouble(i -> -cosines[i]))
                .limit(k).map(i -> records.get(i).id()).toList();
    }

    private ObjectNode report(FootprintLayout.Measured m, List<List<String>> exact) {
        double found = 0;
        for (int q = 0; q < exact.size(); q++) {
            Set<String> hits = new HashSet<>(m.hits().get(q));
            found += exact.get(q).stream().filter(hits::contains).count();
        }
        ObjectNode row = new ObjectMapper().createObjectNode().put("layout", m.layout().name())
                .put("encoding", m.layout().encoding().id()).put("derived_source", m.layout().derivedSource())
                .put("vector_doc_values", m.layout().vectorDocValues()).put("source_vector_max_error", m.sourceVectorError())
                .put("documents", m.documents()).put("store_bytes", m.storeBytes())
                .put("bytes_per_document", m.storeBytes() / (double) m.documents())
                .put("recall_at_k", found / (exact.size() * (double) k));
        // a small segment may still be packed in one compound file (.cfs): then no per-extension sizes
        row.put("compound_file", m.bytesByExtension().containsKey("cfs"));
        ObjectNode files = row.putObject("file_bytes_per_document");
        m.bytesByExtension().forEach((extension, bytes) -> files.put(extension, bytes / (double) m.documents()));
        return row;
    }
}
