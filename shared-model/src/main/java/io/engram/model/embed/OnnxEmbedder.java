package io.engram.model.embed;

import io.engram.model.embed.EmbedderOptions.LongTextMode;
import io.engram.model.embed.EmbedderOptions.Pooling;
import io.engram.model.tokens.TokenCounter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Sentence embeddings with ONNX Runtime on the CPU: the model's own tokenizer (tokenizer.json through DJL's
 * HuggingFace tokenizers, with its padding and truncation switched off), rows sorted by length and padded per
 * batch to the longest row, an attention mask, mean (or CLS) pooling over real tokens, L2 normalisation.
 *
 * <p>Texts longer than the window are cut into windows whose pooled vectors are averaged, weighted by their
 * tokens (or truncated, by option). Empty and whitespace-only texts get the model's embedding of no content
 * and {@code blank=true} instead of failing their batch; lone UTF-16 surrogates are replaced by U+FFFD before
 * tokenising. Thread-safe: ONNX Runtime sessions and the tokenizer accept concurrent calls.
 */
public final class OnnxEmbedder implements Embedder {

    private final String baseId;
    private final EmbedderOptions options;
    private final OnnxEncoder encoder;
    private final boolean outputIsPooled;
    private final int hiddenSize;
    private final int dimension;
    private final long[] prefixIds;
    private final long[] suffixIds;
    private final TokenCounter tokenCounter;
    /** Runs batches concurrently when {@code concurrentBatches > 1}; null otherwise. */
    private final ExecutorService batchPool;

    /** Any sentence-transformers ONNX export with its tokenizer.json. */
    public static OnnxEmbedder fromFiles(Path model, Path tokenizerJson, EmbedderOptions options) {
        try (InputStream tokenizer = Files.newInputStream(tokenizerJson)) {
            String id = model.getFileName().toString().replaceFirst("\\.onnx$", "");
            return new OnnxEmbedder(id, OnnxEncoder.load(Files.readAllBytes(model), tokenizer, options.intraOpThreads()),
                    options);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read model " + model + " or tokenizer " + tokenizerJson, e);
        }
    }

    static OnnxEmbedder fromClasspath(String id, String model, String tokenizer, EmbedderOptions options) {
        return new OnnxEmbedder(id, OnnxEncoder.fromClasspath(model, tokenizer, options.intraOpThreads()), options);
    }

    private OnnxEmbedder(String baseId, OnnxEncoder encoder, EmbedderOptions options) {
        this.baseId = baseId;
        this.options = options;
        this.encoder = encoder;
        try { // a refused option must not leak the native session and tokenizer just opened
            long[] shape = encoder.outputShape();
            this.outputIsPooled = shape.length == 2;
            this.hiddenSize = (int) shape[shape.length - 1];
            if (options.dimension() > hiddenSize) {
                throw new IllegalArgumentException("dimension " + options.dimension() + " exceeds the model's " + hiddenSize);
            }
            this.dimension = options.dimension() == 0 ? hiddenSize : options.dimension();
            this.prefixIds = encoder.prefixIds();
            this.suffixIds = encoder.suffixIds();
            if (options.windowTokens() <= prefixIds.length + suffixIds.length) {
                throw new IllegalArgumentException("window " + options.windowTokens() + " leaves no room for content");
            }
            this.batchPool = options.concurrentBatches() > 1
                    ? Executors.newFixedThreadPool(options.concurrentBatches(), runnable -> {
                        Thread thread = new Thread(runnable, "engram-embedder");
                        thread.setDaemon(true);
                        return thread;
                    })
                    : null;
        } catch (RuntimeException e) {
            encoder.close();
            throw e;
        }
        this.tokenCounter = new TokenCounter() {
            @Override
            public int count(CharSequence text) {
                return tokenize(text.toString()).length;
            }

            @Override
            public String id() {
                return OnnxEmbedder.this.baseId;
            }
        };
    }

    @Override
    public List<Embedding> embedDocuments(List<String> texts) {
        return embed(texts, options.documentPrefix());
    }

    @Override
    public List<Embedding> embedQueries(List<String> texts) {
        return embed(texts, options.queryPrefix());
    }

    @Override
    public int dimension() {
        return dimension;
    }

    @Override
    public String modelId() {
        StringBuilder id = new StringBuilder(baseId).append('/').append(dimension)
                .append('/').append(options.pooling().name().toLowerCase())
                .append("/w").append(options.windowTokens())
                .append(options.longText() == LongTextMode.TRUNCATE ? "-truncate" : "-average");
        if (!options.queryPrefix().isEmpty() || !options.documentPrefix().isEmpty()) {
            id.append("/q=").append(options.queryPrefix()).append("/d=").append(options.documentPrefix());
        }
        return id.toString();
    }

    @Override
    public TokenCounter tokenCounter() {
        return tokenCounter;
    }

    /** One model input row: a window of one text, special tokens included. */
    private record Row(int text, long[] ids) {
    }

    private List<Embedding> embed(List<String> texts, String prefix) {
        List<String> inputs = new ArrayList<>(texts.size());
        for (String text : texts) {
            inputs.add(prefix + text);
        }
        long[][] encodings = encoder.tokenize(inputs);
        int capacity = options.windowTokens() - prefixIds.length - suffixIds.length;
        List<Row> rows = new ArrayList<>();
        int[] contentTokens = new int[texts.size()];
        boolean[] truncated = new boolean[texts.size()];
        int[] windows = new int[texts.size()];
        for (int t = 0; t < texts.size(); t++) {
            long[] content = encodings[t];
            contentTokens[t] = content.length;
            int kept = content.length;
            if (kept > capacity && options.longText() == LongTextMode.TRUNCATE) {
                kept = capacity;
                truncated[t] = true;
            }
            int from = 0;
            do {
                int to = Math.min(kept, from + capacity);
                rows.add(new Row(t, wrap(content, from, to)));
                windows[t]++;
                from = to;
            } while (from < kept);
        }

        float[][] pooled = new float[rows.size()][];
        runBatches(rows, pooled);

        List<Embedding> result = new ArrayList<>(texts.size());
        float[][] sums = new float[texts.size()][];
        int[] weights = new int[texts.size()];
        for (int r = 0; r < rows.size(); r++) {
            Row row = rows.get(r);
            // Windows average weighted by their real tokens: the mean over every token of the text.
            int weight = windows[row.text()] == 1 ? 1 : row.ids().length;
            if (sums[row.text()] == null) {
                sums[row.text()] = new float[hiddenSize];
            }
            float[] sum = sums[row.text()];
            for (int i = 0; i < hiddenSize; i++) {
                sum[i] += pooled[r][i] * weight;
            }
            weights[row.text()] += weight;
        }
        for (int t = 0; t < texts.size(); t++) {
            result.add(new Embedding(Vectors.normalized(sums[t], dimension), tokensOf(texts.get(t), contentTokens[t],
                    prefix), truncated[t], windows[t], texts.get(t).isBlank()));
        }
        return result;
    }

    /** Content tokens of the text itself: the prefix's tokens are the model's business, not the caller's. */
    private int tokensOf(String text, int withPrefix, String prefix) {
        return prefix.isEmpty() ? withPrefix : tokenize(text).length;
    }

    private long[] tokenize(String text) {
        return encoder.tokenize(text);
    }

    private long[] wrap(long[] content, int from, int to) {
        long[] ids = new long[prefixIds.length + (to - from) + suffixIds.length];
        System.arraycopy(prefixIds, 0, ids, 0, prefixIds.length);
        System.arraycopy(content, from, ids, prefixIds.length, to - from);
        System.arraycopy(suffixIds, 0, ids, prefixIds.length + (to - from), suffixIds.length);
        return ids;
    }

    /** Longest rows first; a batch grows while its padded size stays within both bounds. */
    private void runBatches(List<Row> rows, float[][] pooled) {
        Integer[] order = new Integer[rows.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingInt((Integer i) -> rows.get(i).ids().length).reversed());
        List<Integer[]> batches = new ArrayList<>();
        int start = 0;
        while (start < order.length) {
            int longest = rows.get(order[start]).ids().length;
            int end = start + 1;
            while (end < order.length && end - start < options.maxBatchRows()
                    && (long) (end - start + 1) * longest <= options.maxBatchTokens()) {
                end++;
            }
            batches.add(Arrays.copyOfRange(order, start, end));
            start = end;
        }
        if (batchPool == null || batches.size() == 1) {
            batches.forEach(batch -> runBatch(rows, batch, rows.get(batch[0]).ids().length, pooled));
            return;
        }
        // Each batch writes its own rows of pooled; join() publishes them to this thread.
        CompletableFuture.allOf(batches.stream()
                .map(batch -> CompletableFuture.runAsync(
                        () -> runBatch(rows, batch, rows.get(batch[0]).ids().length, pooled), batchPool))
                .toArray(CompletableFuture[]::new)).join();
    }

    private void runBatch(List<Row> rows, Integer[] batch, int length, float[][] pooled) {
        List<long[]> ids = new ArrayList<>(batch.length);
        for (Integer r : batch) {
            ids.add(rows.get(r).ids());
        }
        FloatBuffer hidden = encoder.run(ids, null, length);
        for (int b = 0; b < batch.length; b++) {
            pooled[batch[b]] = pool(hidden, b, length, rows.get(batch[b]).ids().length);
        }
    }

    private float[] pool(FloatBuffer hidden, int row, int length, int realTokens) {
        float[] out = new float[hiddenSize];
        if (outputIsPooled) {
            hidden.get(row * hiddenSize, out);
            return out;
        }
        int base = row * length * hiddenSize;
        if (options.pooling() == Pooling.CLS) {
            hidden.get(base, out);
            return out;
        }
        for (int t = 0; t < realTokens; t++) {
            int offset = base + t * hiddenSize;
            for (int i = 0; i < hiddenSize; i++) {
                out[i] += hidden.get(offset + i);
            }
        }
        for (int i = 0; i < hiddenSize; i++) {
            out[i] /= realTokens;
        }
        return out;
    }

    @Override
    public void close() {
        if (batchPool != null) {
            batchPool.shutdown();
        }
        encoder.close();
    }
}
