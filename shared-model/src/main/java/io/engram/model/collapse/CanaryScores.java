package io.engram.model.collapse;

/**
 * A cycle's canary means (docs/contracts.md §D.6) from each canary's 0-based rank of first hit (−1 for a miss):
 * mean_recall = hits / n, mean_mrr = Σ 1/(r+1) / n, mean_ndcg = Σ 1/log2(r+2) / n. No canaries scores 0.
 */
public record CanaryScores(double meanRecall, double meanMrr, double meanNdcg) {

    public static CanaryScores of(int[] ranks) {
        if (ranks.length == 0) {
            return new CanaryScores(0, 0, 0);
        }
        double hits = 0;
        double mrr = 0;
        double ndcg = 0;
        for (int r : ranks) {
            if (r >= 0) {
                hits++;
                mrr += 1.0 / (r + 1);
                ndcg += RankMetrics.discount(r);
            }
        }
        int n = ranks.length;
        return new CanaryScores(hits / n, mrr / n, ndcg / n);
    }
}
