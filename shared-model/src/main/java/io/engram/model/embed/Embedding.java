package io.engram.model.embed;

/**
 * The embedding of one text.
 *
 * @param vector    unit-length (L2) vector of the configured dimension
 * @param tokens    the text's token count (content tokens, without the model's special tokens)
 * @param truncated whether tokens beyond the model's window were dropped
 * @param windows   how many windows of the model were averaged (1 for a text within the window)
 * @param blank     the text was empty or whitespace: the vector is the model's embedding of no content
 */
public record Embedding(float[] vector, int tokens, boolean truncated, int windows, boolean blank) {

    public int dimension() {
        return vector.length;
    }

    /** Cosine similarity; both vectors are unit length, so this is their dot product. */
    public double cosine(Embedding other) {
        return Vectors.dot(vector, other.vector);
    }
}
