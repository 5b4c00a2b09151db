package io.engram.model.partition;

import io.engram.model.tokens.TokenCounter;
import io.engram.model.tokens.TokenEstimate;

/**
 * Settings of the partitioner.
 *
 * @param tau             context budget τ in tokens
 * @param alpha1          share of τ the hard rules may take
 * @param alpha2          share of τ the soft rules may take
 * @param maxBytes        larger documents are refused
 * @param maxNestingDepth deeper list or quote nesting is refused (parsing cost grows with depth cubed)
 * @param tokens          the token counter; its id is part of the cache key
 */
public record PartitionConfig(int tau, double alpha1, double alpha2, int maxBytes, int maxNestingDepth,
                              TokenCounter tokens) {

    public static final int DEFAULT_TAU = 16384;
    public static final int DEFAULT_MAX_BYTES = 8 * 1024 * 1024;
    public static final int DEFAULT_MAX_NESTING_DEPTH = 64;

    public static PartitionConfig defaults() {
        return new PartitionConfig(DEFAULT_TAU, TierBudget.DEFAULT_ALPHA1, TierBudget.DEFAULT_ALPHA2,
                DEFAULT_MAX_BYTES, DEFAULT_MAX_NESTING_DEPTH, TokenEstimate.INSTANCE);
    }

    public PartitionConfig withBudget(int newTau, double newAlpha1, double newAlpha2) {
        return new PartitionConfig(newTau, newAlpha1, newAlpha2, maxBytes, maxNestingDepth, tokens);
    }

    public PartitionConfig withTokens(TokenCounter counter) {
        return new PartitionConfig(tau, alpha1, alpha2, maxBytes, maxNestingDepth, counter);
    }
}
