package io.engram.model.partition;

/**
 * ι: the tier of a node (docs/contracts.md §A.2). Tier 1 (hard): list items and front matter.
 * Tier 2 (soft): blockquotes, and paragraphs in which the deontic lexer found a rule. Tier 0 (lore):
 * everything else. Every node gets exactly one tier, so the three sets partition the document.
 */
public final class TierAssignment {

    public static final int LORE = 0;
    public static final int HARD = 1;
    public static final int SOFT = 2;

    private TierAssignment() {
    }

    public static int tier(NodeKind kind, boolean hasRule) {
        return switch (kind) {
            case LIST_ITEM, FRONT_MATTER -> HARD;
            case BLOCKQUOTE -> SOFT;
            case PARAGRAPH -> hasRule ? SOFT : LORE;
            case HEADING, CODE_BLOCK, HTML_BLOCK, TABLE -> LORE;
        };
    }
}
