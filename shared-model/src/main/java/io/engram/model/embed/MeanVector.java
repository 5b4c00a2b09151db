package io.engram.model.embed;

import java.util.List;

/**
 * The unit-length mean of embeddings: the vector of a record made of other texts already embedded (a window of
 * turns), without a model call of its own. With {@link Weighting#TOKENS} each counts by its tokens, as the model
 * averages the windows of one long text; with every weight zero (blank texts only) each counts the same.
 */
public final class MeanVector {

    /** How much each embedding counts. */
    public enum Weighting {
        /** Each the same. */
        EQUAL,
        /** By its text's token count. */
        TOKENS
    }

    private MeanVector() {
    }

    /** The normalised weighted mean of {@code parts}' vectors; at least one part, all of one dimension. */
    public static float[] of(List<Embedding> parts, Weighting weighting) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("a mean vector needs at least one embedding");
        }
        int dimension = parts.get(0).dimension();
        boolean byTokens = weighting == Weighting.TOKENS && parts.stream().anyMatch(p -> p.tokens() > 0);
        float[] sum = new float[dimension];
        for (Embedding part : parts) {
            if (part.dimension() != dimension) {
                throw new IllegalArgumentException("dimensions differ: " + part.dimension() + " vs " + dimension);
            }
            float weight = byTokens ? part.tokens() : 1;
            for (int i = 0; i < dimension; i++) {
                sum[i] += part.vector()[i] * weight;
            }
        }
        return Vectors.normalized(sum, dimension);
    }
}
