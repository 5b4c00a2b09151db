package io.engram.model.partition;

/**
 * ι: the tier of a node (docs/contracts.md §A.2). Tier 1 (hard): a list item or front matter that states a rule —
 * the lexer finds one and the rule reader reads the item as a rule too. Tier 2 (soft): blockquotes, paragraphs in
 * which the lexer finds a rule, and list items or front matter in which the lexer alone finds one. Tier 0 (lore):
 * everything else — tables of contents, link lists, file maps and command references among them, found by
 * relevance instead of always included. Every node gets exactly one tier, so the three sets partition the document.
 *
 * <p>The seed's rule (every list item and the front matter hard, whatever they say) is kept as an option: on 37
 * real documents it put 35 % of the hard tier's tokens in nodes without any rule (docs/contracts.md §A.2).
 */
public final class TierAssignment {

    public static final int LORE = 0;
    public static final int HARD = 1;
    public static final int SOFT = 2;

    private TierAssignment() {
    }

    /** The seed's rule: every list item and the front matter hard. */
    public static int seedTier(NodeKind kind, boolean hasRule) {
        return switch (kind) {
            case LIST_ITEM, FRONT_MATTER -> HARD;
            case BLOCKQUOTE -> SOFT;
            case PARAGRAPH -> hasRule ? SOFT : LORE;
            case HEADING, CODE_BLOCK, HTML_BLOCK, TABLE -> LORE;
        };
    }

    /**
     * The tier by what a node states.
     *
     * @param hasRule   the lexer found a rule in the node
     * @param confirmed the rule reader reads the node as a rule as well (asked only of list items and front matter
     *                  in which the lexer found one)
     */
    public static int tier(NodeKind kind, boolean hasRule, boolean confirmed) {
        return switch (kind) {
            case LIST_ITEM, FRONT_MATTER -> !hasRule ? LORE : confirmed ? HARD : SOFT;
            case BLOCKQUOTE -> SOFT;
            case PARAGRAPH -> hasRule ? SOFT : LORE;
            case HEADING, CODE_BLOCK, HTML_BLOCK, TABLE -> LORE;
        };
    }

    /** Whether a node of {@code kind} with a rule the lexer found is hard only if the rule reader confirms it. */
    static boolean needsConfirmation(NodeKind kind) {
        return kind == NodeKind.LIST_ITEM || kind == NodeKind.FRONT_MATTER;
    }
}
