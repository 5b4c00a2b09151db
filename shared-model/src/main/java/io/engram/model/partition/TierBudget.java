package io.engram.model.partition;

import java.util.List;

/**
 * The load-time token bounds (docs/contracts.md §A.5) over a context budget τ. Hard (tier 1) tokens above α1·τ
 * reject the document version; soft (tier 2) nodes are kept by the longest prefix, in document order, whose
 * tokens fit α2·τ, and the rest are cut. Limits are whole tokens: {@code floor(α·τ)}.
 *
 * @param tau                context budget τ in tokens
 * @param hardLimit          floor(α1·τ)
 * @param softLimit          floor(α2·τ)
 * @param hardTokens         Σ tokens of tier-1 nodes
 * @param softTokens         Σ tokens of tier-2 nodes
 * @param softTokensKept     Σ tokens of the kept tier-2 prefix
 * @param softNodesKept      how many tier-2 nodes the prefix keeps
 * @param truncatedSoftNodes how many tier-2 nodes were cut
 * @param verdict            the outcome
 */
public record TierBudget(int tau, long hardLimit, long softLimit, long hardTokens, long softTokens,
                         long softTokensKept, int softNodesKept, int truncatedSoftNodes, Verdict verdict) {

    public static final double DEFAULT_ALPHA1 = 0.4;
    public static final double DEFAULT_ALPHA2 = 0.3;

    /** The budget outcome of a document version. */
    public enum Verdict implements SnakeCaseLabel {
        ACCEPTED,
        SOFT_TRUNCATED,
        REJECTED_HARD_OVERFLOW
    }

    /** Applies the bounds to the nodes of one document. */
    public static TierBudget evaluate(List<DocumentNode> nodes, int tau, double alpha1, double alpha2) {
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
        Verdict verdict = hard > hardLimit ? Verdict.REJECTED_HARD_OVERFLOW
                : cut > 0 ? Verdict.SOFT_TRUNCATED : Verdict.ACCEPTED;
        return new TierBudget(tau, hardLimit, softLimit, hard, soft, kept, keptNodes, cut, verdict);
    }

    /** floor(α·τ), robust to the binary representation of α (0.4·1000 is 400, not 399). */
    static long limit(double alpha, int tau) {
        return (long) Math.floor(alpha * tau + 1e-9);
    }

    /** Whether this document version may go live. */
    public boolean accepted() {
        return verdict != Verdict.REJECTED_HARD_OVERFLOW;
    }

    /** A one-line explanation with the numbers, for reject records and the CLI. */
    public String explain() {
        return switch (verdict) {
            case ACCEPTED -> "accepted: hard " + hardTokens + "/" + hardLimit + " tokens, soft " + softTokens + "/"
                    + softLimit + " tokens (tau " + tau + ")";
            case SOFT_TRUNCATED -> "accepted with soft rules truncated: kept " + softNodesKept + " soft nodes ("
                    + softTokensKept + " of " + softTokens + " tokens, limit " + softLimit + "), cut "
                    + truncatedSoftNodes + "; hard " + hardTokens + "/" + hardLimit + " (tau " + tau + ")";
            case REJECTED_HARD_OVERFLOW -> "rejected: hard rules take " + hardTokens + " tokens, over the limit "
                    + hardLimit + " = floor(alpha1 * tau) with tau " + tau;
        };
    }
}
