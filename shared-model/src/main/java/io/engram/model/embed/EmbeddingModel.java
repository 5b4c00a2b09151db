package io.engram.model.embed;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The embedding models that ship with Engram (their ONNX files and tokenizers are on the classpath, from
 * langchain4j's model jars), each with the options it was trained for. All three give 384-dimensional vectors
 * over the same uncased WordPiece vocabulary, so token counts do not depend on the choice; vectors do, and an
 * index holds the vectors of one model only. docs/algorithms.md ("Embedding models") has the measured recall and
 * cost of each. {@link #HASHED_STANDIN} is no model but a stand-in for benchmarks, 384-dimensional too.
 */
public enum EmbeddingModel {

    /** all-MiniLM-L6-v2, fp32: 6 layers, mean pooling, 256-token window. */
    ALL_MINILM_L6_V2("all-minilm-l6-v2", "all-minilm-l6-v2.onnx", "all-minilm-l6-v2-tokenizer.json",
            EmbedderOptions.defaults()),

    /**
     * all-MiniLM-L6-v2, int8. Its activations are quantised dynamically per call, so a row's vector depends on
     * the other rows of its batch: one row per call keeps vectors reproducible.
     */
    ALL_MINILM_L6_V2_Q("all-minilm-l6-v2-q", "all-minilm-l6-v2-q.onnx", "all-minilm-l6-v2-q-tokenizer.json",
            oneRowPerCall(EmbedderOptions.defaults())),

    /**
     * bge-small-en-v1.5, int8: 12 layers, [CLS] pooling, 512-token window, and the instruction BAAI recommends
     * before a short query that looks for passages. One row per call, as for every dynamically quantised model.
     */
    BGE_SMALL_EN_V15_Q("bge-small-en-v1.5-q", "bge-small-en-v1.5-q.onnx", "bge-small-en-v1.5-q-tokenizer.json",
            oneRowPerCall(EmbedderOptions.defaults()
                    .withWindow(512, EmbedderOptions.LongTextMode.WINDOW_AVERAGE)
                    .withPooling(EmbedderOptions.Pooling.CLS)
                    .withPrefixes("Represent this sentence for searching relevant passages: ", ""))),

    /**
     * Not a model: {@link HashedStandinEmbedder}, hashed word and trigram features, for benchmarks that load
     * millions of records to measure everything but the model (docs/benchmarks.md says where it is used).
     */
    HASHED_STANDIN(HashedStandinEmbedder.ID, null, null, EmbedderOptions.defaults());

    /** The vector length of every model here, what the index mapping is created for. */
    public static final int DIMENSION = 384;

    private final String id;
    private final String onnxResource;
    private final String tokenizerResource;
    private final EmbedderOptions options;

    EmbeddingModel(String id, String onnxResource, String tokenizerResource, EmbedderOptions options) {
        this.id = id;
        this.onnxResource = onnxResource;
        this.tokenizerResource = tokenizerResource;
        this.options = options;
    }

    private static EmbedderOptions oneRowPerCall(EmbedderOptions options) {
        return options.withBatch(1, options.windowTokens());
    }

    /** The name configuration uses ({@code embed.model}). */
    public String id() {
        return id;
    }

    /** The options the model was trained for, on this machine's cores. */
    public EmbedderOptions options() {
        return options;
    }

    /** The embedder of this name: the ONNX model with its own options, or the stand-in. */
    public Embedder embedder() {
        return onnxResource == null ? new HashedStandinEmbedder(DIMENSION) : open();
    }

    /** Loads the ONNX model with its own options. */
    public OnnxEmbedder open() {
        return open(options);
    }

    /** Loads the ONNX model with other options (a smaller dimension, other batches, a prefix). */
    public OnnxEmbedder open(EmbedderOptions with) {
        if (onnxResource == null) {
            throw new IllegalStateException(id + " is a stand-in, not an ONNX model: embedder() opens it");
        }
        return OnnxEmbedder.fromClasspath(id, onnxResource, tokenizerResource, with);
    }

    /** The model named {@code id}; the error lists the names there are. */
    public static EmbeddingModel ofId(String id) {
        for (EmbeddingModel m : values()) {
            if (m.id.equals(id.strip().toLowerCase(Locale.ROOT))) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown embedding model '" + id + "'; known: "
                + Arrays.stream(values()).map(EmbeddingModel::id).collect(Collectors.joining(", ")));
    }
}
