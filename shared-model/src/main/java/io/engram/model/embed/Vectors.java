package io.engram.model.embed;

/** Small vector helpers shared by pooling, windowing and similarity. */
public final class Vectors {

    private Vectors() {
    }

    public static double dot(float[] a, float[] b) {
        if (a.length != b.length) {
            throw new IllegalArgumentException("dimensions differ: " + a.length + " vs " + b.length);
        }
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += (double) a[i] * b[i];
        }
        return sum;
    }

    /** Cosine of two vectors of any length (0 when either is zero). */
    public static double cosine(float[] a, float[] b) {
        double na = Math.sqrt(dot(a, a));
        double nb = Math.sqrt(dot(b, b));
        return na == 0 || nb == 0 ? 0 : dot(a, b) / (na * nb);
    }

    /** The first {@code dimension} components scaled to unit length (Matryoshka truncation when shorter). */
    public static float[] normalized(float[] v, int dimension) {
        double norm = 0;
        for (int i = 0; i < dimension; i++) {
            norm += (double) v[i] * v[i];
        }
        norm = Math.sqrt(norm);
        float[] out = new float[dimension];
        if (norm == 0) {
            return out;
        }
        for (int i = 0; i < dimension; i++) {
            out[i] = (float) (v[i] / norm);
        }
        return out;
    }
}
