package io.engram.model.retrieval;

import io.engram.model.embed.Vectors;
import java.util.List;

/**
 * Pseudo-relevance feedback on the query's vector (Rocchio, without judged non-relevant documents): the query
 * moved toward the centroid of its best hits, {@code q' = normalise(q + β · mean(h_1 … h_m))}, and searched
 * again. What the best hits say about the topic ("camping", "pottery" for "what activities does she do?") joins
 * the question's own wording, so turns close to the hits but not to the question are found.
 *
 * @param hits how many of the best hits move the query (0: off)
 * @param beta β, how far toward their centroid
 */
public record RelevanceFeedback(int hits, double beta) {

    public static final RelevanceFeedback NONE = new RelevanceFeedback(0, 0);

    public RelevanceFeedback {
        if (hits < 0 || beta < 0) {
            throw new IllegalArgumentException("hits and beta must not be negative: " + hits + ", " + beta);
        }
    }

    public boolean on() {
        return hits > 0 && beta > 0;
    }

    /** q' from the query and the vectors of its best hits (at most {@link #hits()} of them are used), unit length. */
    public float[] expand(float[] query, List<float[]> best) {
        float[] moved = query.clone();
        int used = Math.min(hits, best.size());
        for (int h = 0; h < used; h++) {
            float[] v = best.get(h);
            if (v.length != query.length) {
                throw new IllegalArgumentException("dimensions differ: " + v.length + " vs " + query.length);
            }
            for (int i = 0; i < moved.length; i++) {
                moved[i] += (float) (beta * v[i] / used);
            }
        }
        return Vectors.normalized(moved, moved.length);
    }
}
