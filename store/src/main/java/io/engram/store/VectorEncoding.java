package io.engram.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How the index holds the embedding on the Lucene engine ({@code opensearch.vector-encoding}): {@code float}, 4
 * bytes a dimension; or {@code sq}, Lucene's scalar quantization, which searches the graph over one byte a dimension
 * (7 bits, quantiles per segment; queries quantized by OpenSearch) and keeps the floats on disk beside them to
 * re-quantize on merges. The mapping of an index records its encoding: an index keeps the one it was created with.
 */
public enum VectorEncoding {
    FLOAT("float"),
    SQ("sq");

    /** What an index is created with when nothing is set. */
    public static final VectorEncoding DEFAULT = FLOAT;

    private final String id;

    VectorEncoding(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    /** The encoding named {@code id}; an unknown name is refused with the known ones. */
    public static VectorEncoding of(String id) {
        for (VectorEncoding encoding : values()) {
            if (encoding.id.equals(id.trim().toLowerCase(Locale.ROOT))) {
                return encoding;
            }
        }
        throw new IllegalArgumentException("unknown opensearch.vector-encoding '" + id + "': one of "
                + Arrays.stream(values()).map(VectorEncoding::id).collect(Collectors.joining(", ")));
    }

    /** Sets this encoding on a Lucene {@code knn_vector} field's mapping (one with {@code method.parameters}). */
    void applyTo(ObjectNode vectorField) {
        if (this == SQ) {
            ((ObjectNode) vectorField.at("/method/parameters")).putObject("encoder").put("name", "sq");
        }
    }

    /** The encoding a {@code knn_vector} field's mapping (as OpenSearch answers it) stores its vectors in. */
    static VectorEncoding ofMapping(JsonNode vectorField) {
        JsonNode encoder = vectorField.path("method").path("parameters").path("encoder").path("name");
        return encoder.isMissingNode() ? FLOAT : of(encoder.asText());
    }
}
