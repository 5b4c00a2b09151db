package io.engram.model.retrieval;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The weights of a logistic regression fitted offline (tools/fit-learned-relevance), one per named feature, and the
 * probability they give a feature vector: what {@link LearnedRelevance} and {@link LearnedTurnRelevance} share.
 */
abstract class LearnedWeights {

    private final double[] weights;

    /** @param weights one per feature of {@code features}, in order */
    LearnedWeights(double[] weights, List<String> features) {
        if (weights.length != features.size()) {
            throw new IllegalArgumentException(features.size() + " weights expected, got " + weights.length);
        }
        this.weights = weights.clone();
    }

    public double[] weights() {
        return weights.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o != null && o.getClass() == getClass() && Arrays.equals(weights, ((LearnedWeights) o).weights);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(weights);
    }

    /**
     * Weights written one per line as {@code feature<TAB>weight}, every feature of {@code features} once, in order
     * (lines starting with # aside).
     */
    static double[] parse(String tsv, List<String> features) {
        List<String> lines = tsv.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        if (lines.size() != features.size()) {
            throw new IllegalArgumentException(features.size() + " weights expected, got " + lines.size() + " lines");
        }
        double[] weights = new double[lines.size()];
        for (int i = 0; i < weights.length; i++) {
            String[] fields = lines.get(i).split("\t");
            if (fields.length != 2 || !fields[0].equals(features.get(i))) {
                throw new IllegalArgumentException("line " + (i + 1) + " must be '" + features.get(i) + "<TAB>weight': "
                        + lines.get(i));
            }
            try {
                weights[i] = Double.parseDouble(fields[1]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("line " + (i + 1) + " has no number: " + lines.get(i), e);
            }
        }
        return weights;
    }

    /** The weights in the resource {@code name} beside {@code owner}, as {@link #parse} reads them; empty without one. */
    static Optional<double[]> resource(Class<?> owner, String name, List<String> features) {
        try (InputStream in = owner.getResourceAsStream(name)) {
            return in == null ? Optional.empty()
                    : Optional.of(parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), features));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** σ(w · f). */
    double probability(double[] features) {
        double z = 0;
        for (int j = 0; j < weights.length; j++) {
            z += weights[j] * features[j];
        }
        return 1 / (1 + Math.exp(-z));
    }
}
