package io.engram.model.embed;

/**
 * How an {@link OnnxEmbedder} runs.
 *
 * @param windowTokens      the model's window in tokens, special tokens included
 * @param longText          what to do with a text longer than the window
 * @param pooling           mean over real tokens, or the first ([CLS]) token
 * @param dimension         output dimension; below the model's, Matryoshka truncation and re-normalisation
 *                          (0 = the model's)
 * @param queryPrefix       prepended to queries ("query: " for e5 models)
 * @param documentPrefix    prepended to documents ("passage: " for e5 models)
 * @param maxBatchRows      most rows in one inference call
 * @param maxBatchTokens    most padded tokens (rows × longest row) in one call: short texts batch wide,
 *                          long ones narrow
 * @param intraOpThreads    ONNX Runtime threads inside one inference call
 * @param concurrentBatches inference calls run at once on the batches of one request
 */
public record EmbedderOptions(int windowTokens, LongTextMode longText, Pooling pooling, int dimension,
                              String queryPrefix, String documentPrefix, int maxBatchRows, int maxBatchTokens,
                              int intraOpThreads, int concurrentBatches) {

    /** Longer than the window: average the windows, or keep the first window only. */
    public enum LongTextMode { WINDOW_AVERAGE, TRUNCATE }

    /** How token vectors become one vector. */
    public enum Pooling { MEAN, CLS }

    public EmbedderOptions {
        if (windowTokens < 3) {
            throw new IllegalArgumentException("window must hold special tokens and content: " + windowTokens);
        }
        if (dimension < 0 || maxBatchRows < 1 || maxBatchTokens < windowTokens || intraOpThreads < 1
                || concurrentBatches < 1) {
            throw new IllegalArgumentException("invalid embedder options: " + this);
        }
    }

    /**
     * Defaults for all-MiniLM-L6-v2 on a small machine: its sentence-transformers window of 256 tokens, windows
     * averaged, mean pooling, full 384 dimensions; small batches (up to 8 rows and 256 padded tokens, whose
     * activations stay in cache) run one per core at once, each call single-threaded. Measured on 2 cores this
     * beat one large multi-threaded batch by 30-40 % (docs/benchmarks.md).
     */
    public static EmbedderOptions defaults() {
        return new EmbedderOptions(256, LongTextMode.WINDOW_AVERAGE, Pooling.MEAN, 0, "", "", 8, 256,
                1, Runtime.getRuntime().availableProcessors());
    }

    public EmbedderOptions withDimension(int newDimension) {
        return new EmbedderOptions(windowTokens, longText, pooling, newDimension, queryPrefix, documentPrefix,
                maxBatchRows, maxBatchTokens, intraOpThreads, concurrentBatches);
    }

    public EmbedderOptions withBatch(int rows, int tokens) {
        return new EmbedderOptions(windowTokens, longText, pooling, dimension, queryPrefix, documentPrefix,
                rows, tokens, intraOpThreads, concurrentBatches);
    }

    public EmbedderOptions withWindow(int tokens, LongTextMode mode) {
        return new EmbedderOptions(tokens, mode, pooling, dimension, queryPrefix, documentPrefix,
                maxBatchRows, Math.max(maxBatchTokens, tokens), intraOpThreads, concurrentBatches);
    }

    public EmbedderOptions withPooling(Pooling newPooling) {
        return new EmbedderOptions(windowTokens, longText, newPooling, dimension, queryPrefix, documentPrefix,
                maxBatchRows, maxBatchTokens, intraOpThreads, concurrentBatches);
    }

    public EmbedderOptions withPrefixes(String query, String document) {
        return new EmbedderOptions(windowTokens, longText, pooling, dimension, query, document,
                maxBatchRows, maxBatchTokens, intraOpThreads, concurrentBatches);
    }

    /** ONNX threads per call, and how many calls (batches) run at once. */
    public EmbedderOptions withParallelism(int threadsPerCall, int concurrentCalls) {
        return new EmbedderOptions(windowTokens, longText, pooling, dimension, queryPrefix, documentPrefix,
                maxBatchRows, maxBatchTokens, threadsPerCall, concurrentCalls);
    }
}
