package io.engram.model.retrieval;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fusion of ranked candidate lists (docs/contracts.md §E.1): reciprocal rank fusion scores a candidate
 * Σ 1/(k + rank), ranks from 1, over the lists it appears in. Ranks, not scores, so BM25's unbounded scores
 * and cosine similarities need no common scale.
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
}
