package io.engram.model.collapse;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Rank metrics with binary relevance over the top {@code k} of a ranked result list. A result id that appears
 * more than once counts once, at its first position, so a store that returns duplicates cannot inflate a score.
 */
public final class RankMetrics {

    private RankMetrics() {
    }

    /** |relevant ∩ top k| / |relevant| (1 when nothing is relevant). */
    public static double recallAtK(List<String> ranked, Set<String> relevant, int k) {
        if (relevant.isEmpty()) {
            return 1.0;
        }
        long found = topK(ranked, k).stream().filter(relevant::contains).count();
        return found / (double) relevant.size();
    }

    /** DCG@k / ideal DCG@k with gain 1 per relevant result at 0-based rank r discounted by log2(r + 2). */
    public static double ndcgAtK(List<String> ranked, Set<String> relevant, int k) {
        if (relevant.isEmpty()) {
            return 1.0;
        }
        List<String> top = topK(ranked, k);
        double dcg = 0;
        for (int r = 0; r < top.size(); r++) {
            if (relevant.contains(top.get(r))) {
                dcg += discount(r);
            }
        }
        double ideal = 0;
        for (int r = 0; r < Math.min(k, relevant.size()); r++) {
            ideal += discount(r);
        }
        return dcg / ideal;
    }

    /** 1 / (r + 1) for the first relevant result at 0-based rank r within the top k, else 0. */
    public static double mrr(List<String> ranked, Set<String> relevant, int k) {
        int r = firstRelevantRank(ranked, relevant::contains, k);
        return r < 0 ? 0 : 1.0 / (r + 1);
    }

    /** The 0-based rank of the first relevant result within the top k, or −1. */
    public static int firstRelevantRank(List<String> ranked, Predicate<String> relevant, int k) {
        List<String> top = topK(ranked, k);
        for (int r = 0; r < top.size(); r++) {
            if (relevant.test(top.get(r))) {
                return r;
            }
        }
        return -1;
    }

    static double discount(int rank) {
        return 1.0 / (Math.log(rank + 2) / Math.log(2));
    }

    private static List<String> topK(List<String> ranked, int k) {
        List<String> distinct = new ArrayList<>(new LinkedHashSet<>(ranked));
        return distinct.subList(0, Math.min(k, distinct.size()));
    }
}
