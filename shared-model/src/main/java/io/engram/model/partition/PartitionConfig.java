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
 * @param ruleReader      read rules sentence by sentence with the learned rule reader beside the lexer, combined as
 *                        the reader's settings say (docs/algorithms.md, "The rule reader"); off: the lexer alone
 * @param listItemsByRule a list item or front matter is hard tier only if it states a rule (the lexer finds one and the
 *                        rule reader agrees), soft if the lexer alone finds one, lore otherwise (the default,
 *                        {@link TierAssignment#tier}); off: the seed's rule, every list item and front matter hard
 */
public record PartitionConfig(int tau, double alpha1, double alpha2, int maxBytes, int maxNestingDepth,
                              TokenCounter tokens, boolean ruleReader, boolean listItemsByRule) {

    public static final int DEFAULT_TAU = 16384;
    public static final int DEFAULT_MAX_BYTES = 8 * 1024 * 1024;
    public static final int DEFAULT_MAX_NESTING_DEPTH = 64;

    public static PartitionConfig defaults() {
        return new PartitionConfig(DEFAULT_TAU, TierBudget.DEFAULT_ALPHA1, TierBudget.DEFAULT_ALPHA2,
                DEFAULT_MAX_BYTES, DEFAULT_MAX_NESTING_DEPTH, TokenEstimate.INSTANCE, false, true);
    }

    public PartitionConfig withBudget(int newTau, double newAlpha1, double newAlpha2) {
        return new PartitionConfig(newTau, newAlpha1, newAlpha2, maxBytes, maxNestingDepth, tokens, ruleReader,
                listItemsByRule);
    }

    public PartitionConfig withTokens(TokenCounter counter) {
        return new PartitionConfig(tau, alpha1, alpha2, maxBytes, maxNestingDepth, counter, ruleReader, listItemsByRule);
    }

    /**
     * What the cache key hashes beside the bytes: the token counter's id, and the rule readings when they are not
     * the defaults (the same bytes partition differently under them).
     */
    public String cacheId() {
        return tokens.id() + (ruleReader ? "+rule-reader" : "") + (listItemsByRule ? "+rule-tiers" : "");
    }

    public PartitionConfig withRuleReader(boolean on) {
        return new PartitionConfig(tau, alpha1, alpha2, maxBytes, maxNestingDepth, tokens, on, listItemsByRule);
    }

    public PartitionConfig withListItemsByRule(boolean on) {
        return new PartitionConfig(tau, alpha1, alpha2, maxBytes, maxNestingDepth, tokens, ruleReader, on);
    }
}
