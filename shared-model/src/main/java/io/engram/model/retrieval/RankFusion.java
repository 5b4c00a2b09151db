package io.engram.model.retrieval;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fusion of ranked candidate lists (docs/contracts.md §E.1). Reciprocal rank fusion scores a candidate Σ 1/(k + rank),
 * ranks from 1, over the lists it appears in; the convex combination min-max normalises each list's scores
 * to [0, 1] and mixes them with a weight.
 */
public final class RankFusion {

    /** The usual RRF constant: dampens the weight of the very first ranks. */
    public static final int DEFAULT_RRF_K = 60;

    private RankFusion() {
    }

    /** RRF over lists of ids, best first; the result keeps first-seen order for ties. */
    public static Map<String, Double> reciprocalRank(List<List<String>> rankings, int k) {
        if (k < 0) {
            throw new IllegalArgumentException("k must not be negative: " + k);
        }
        Map<String, Double> fused = new LinkedHashMap<>();
        for (List<String> ranking : rankings) {
            for (int i = 0; i < ranking.size(); i++) {
                fused.merge(ranking.get(i), 1.0 / (k + i + 1), Double::sum);
            }
        }
        return fused;
    }

    /**
     * {@code weight·norm(lexical) + (1 − weight)·norm(vector)}; a candidate missing from a list gets 0 there,
     * and a list whose scores are all equal normalises to 1.
     */
    public static Map<String, Double> convexCombination(Map<String, Double> lexical, Map<String, Double> vector,
                                                        double weight) {
        if (weight < 0 || weight > 1) {
            throw new IllegalArgumentException("weight must be in [0, 1]: " + weight);
        }
        Map<String, Double> a = minMax(lexical);
        Map<String, Double> b = minMax(vector);
        Map<String, Double> fused = new LinkedHashMap<>();
        a.forEach((id, s) -> fused.merge(id, weight * s, Double::sum));
        b.forEach((id, s) -> fused.merge(id, (1 - weight) * s, Double::sum));
        return fused;
    }

    static Map<String, Double> minMax(Map<String, Double> scores) {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (double s : scores.values()) {
            min = Math.min(min, s);
            max = Math.max(max, s);
        }
        Map<String, Double> out = new LinkedHashMap<>();
        for (Map.Entry<String, Double> e : scores.entrySet()) {
            out.put(e.getKey(), max == min ? 1.0 : (e.getValue() - min) / (max - min));
        }
        return out;
    }
}
