package io.engram.model.embed;

import java.util.List;

/**
 * The unit-length mean of embeddings, each counting the same: the vector of a record made of other texts already
 * embedded (a window of turns), without a model call of its own.
 */
public final class MeanVector {

    private MeanVector() {
    }

    /** Σ vᵢ / ‖Σ vᵢ‖ over {@code parts}' vectors; at least one part, all of one dimension. */
    public static float[] of(List<Embedding> parts) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("a mean vector needs at least one embedding");
        }
        int dimension = parts.get(0).dimension();
        float[] sum = new float[dimension];
        for (Embedding part : parts) {
            if (part.dimension() != dimension) {
                throw new IllegalArgumentException("dimensions differ: " + part.dimension() + " vs " + dimension);
            }
            for (int i = 0; i < dimension; i++) {
                sum[i] += part.vector()[i];
            }
        }
        return Vectors.normalized(sum, dimension);
    }
}
