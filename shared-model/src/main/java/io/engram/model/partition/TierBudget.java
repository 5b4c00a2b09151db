package io.engram.model.partition;

import java.util.List;

/**
 * The load-time token bounds (docs/contracts.md §A.5) over a context budget τ. Hard (tier 1) tokens above α1·τ
 * move the weakest hard nodes to the soft tier ({@link HardTierFill}; the seed rejected the version); soft (tier 2)
 * nodes are kept by the longest prefix, in document order, whose tokens fit α2·τ, and the rest are cut. Limits are
 * whole tokens: {@code floor(α·τ)}.
 *
 * @param tau                context budget τ in tokens
 * @param hardLimit          floor(α1·τ)
 * @param softLimit          floor(α2·τ)
 * @param hardTokens         Σ tokens of tier-1 nodes
 * @param softTokens         Σ tokens of tier-2 nodes
 * @param softTokensKept     Σ tokens of the kept tier-2 prefix
 * @param softNodesKept      how many tier-2 nodes the prefix keeps
 * @param truncatedSoftNodes how many tier-2 nodes were cut
 * @param demotedHardNodes   how many nodes that state a hard rule were moved to the soft tier to fit α1·τ
 * @param verdict            the outcome
 */
public record TierBudget(int tau, long hardLimit, long softLimit, long hardTokens, long softTokens,
                         long softTokensKept, int softNodesKept, int truncatedSoftNodes, int demotedHardNodes,
                         Verdict verdict) {

    public static final double DEFAULT_ALPHA1 = 0.4;
    public static final double DEFAULT_ALPHA2 = 0.3;

    /** The budget outcome of a document version. */
    public enum Verdict implements SnakeCaseLabel {
        ACCEPTED,
        SOFT_TRUNCATED,
        /** Hard rules over α1·τ: the strongest kept hard, the others moved to the soft tier (and maybe cut there). */
        HARD_DEMOTED
    }

    /** Applies the bounds to the nodes of one document, none of them demoted. */
    public static TierBudget evaluate(List<DocumentNode> nodes, int tau, double alpha1, double alpha2) {
        return evaluate(nodes, tau, alpha1, alpha2, 0);
    }

    /** Applies the bounds to the nodes of one document after {@code demoted} hard nodes were moved to the soft tier. */
    static TierBudget evaluate(List<DocumentNode> nodes, int tau, double alpha1, double alpha2, int demoted) {
        if (tau <= 0) {
            throw new IllegalArgumentException("tau must be positive: " + tau);
        }
        if (!(alpha1 > 0 && alpha1 <= 1 && alpha2 >= 0 && alpha2 <= 1)) {
            throw new IllegalArgumentException("need 0 < alpha1 <= 1 and 0 <= alpha2 <= 1: " + alpha1 + ", " + alpha2);
        }
        long hardLimit = limit(alpha1, tau);
        long softLimit = limit(alpha2, tau);
        long hard = 0;
        long soft = 0;
        long kept = 0;
        int keptNodes = 0;
        int cut = 0;
        for (DocumentNode node : nodes) {
            if (node.tier() == TierAssignment.HARD) {
                hard += node.tokens();
            } else if (node.tier() == TierAssignment.SOFT) {
                soft += node.tokens();
                // A prefix: once one soft node does not fit, every later one is cut too.
                if (cut == 0 && kept + node.tokens() <= softLimit) {
                    kept += node.tokens();
                    keptNodes++;
                } else {
                    cut++;
                }
            }
        }
        if (hard > hardLimit) {
            throw new IllegalArgumentException("hard rules take " + hard + " tokens, over the limit " + hardLimit
                    + ": demote them first (HardTierFill)");
        }
        Verdict verdict = demoted > 0 ? Verdict.HARD_DEMOTED : cut > 0 ? Verdict.SOFT_TRUNCATED : Verdict.ACCEPTED;
        return new TierBudget(tau, hardLimit, softLimit, hard, soft, kept, keptNodes, cut, demoted, verdict);
    }

    /** floor(α·τ), robust to the binary representation of α (0.4·1000 is 400, not 399). */
    static long limit(double alpha, int tau) {
        return (long) Math.floor(alpha * tau + 1e-9);
    }

    /** A one-line explanation with the numbers, for reject records and the CLI. */
    public String explain() {
        return switch (verdict) {
            case ACCEPTED -> "accepted: hard " + hardTokens + "/" + hardLimit + " tokens, soft " + softTokens + "/"
                    + softLimit + " tokens (tau " + tau + ")";
            case SOFT_TRUNCATED -> "accepted with soft rules truncated: kept " + softNodesKept + " soft nodes ("
                    + softTokensKept + " of " + softTokens + " tokens, limit " + softLimit + "), cut "
                    + truncatedSoftNodes + "; hard " + hardTokens + "/" + hardLimit + " (tau " + tau + ")";
            case HARD_DEMOTED -> "accepted with " + demotedHardNodes + (demotedHardNodes == 1 ? " hard rule" : " hard rules")
                    + " moved to the soft tier: the "
                    + "strongest fill the hard limit " + hardLimit + " = floor(alpha1 * tau) with tau " + tau + " (hard "
                    + hardTokens + " tokens kept); soft " + softTokensKept + " of " + softTokens + " tokens kept, "
                    + truncatedSoftNodes + " soft nodes cut at " + softLimit;
        };
    }
}
