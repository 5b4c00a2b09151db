package io.engram.model.partition;

/**
 * ι: the tier of a node (docs/contracts.md §A.2). Tier 1 (hard): list items and front matter.
 * Tier 2 (soft): blockquotes, and paragraphs in which a rule was found. Tier 0 (lore): everything else. With list
 * items by rule (an opt-in setting), a list item in which no rule was found is lore instead of hard. Every node
 * gets exactly one tier, so the three sets partition the document.
 */
public final class TierAssignment {

    public static final int LORE = 0;
    public static final int HARD = 1;
    public static final int SOFT = 2;

    private TierAssignment() {
    }

    public static int tier(NodeKind kind, boolean hasRule) {
        return tier(kind, hasRule, false);
    }

    public static int tier(NodeKind kind, boolean hasRule, boolean listItemsByRule) {
        return switch (kind) {
            case LIST_ITEM -> hasRule || !listItemsByRule ? HARD : LORE;
            case FRONT_MATTER -> HARD;
            case BLOCKQUOTE -> SOFT;
            case PARAGRAPH -> hasRule ? SOFT : LORE;
            case HEADING, CODE_BLOCK, HTML_BLOCK, TABLE -> LORE;
        };
    }
}
