package io.engram.model.retrieval;

import java.util.List;

/**
 * A token-budgeted context: what went in and why, what was left out and why.
 *
 * @param included        in rendering order: hard rules, soft rules, memories, then the recent tail
 * @param excluded        every candidate left out, with the reason
 * @param tokensUsed      Σ tokens of the included items
 * @param budget          τ
 * @param degraded        the mandatory parts (hard rules, recent tail) did not fit τ and were kept anyway
 * @param degradedReasons why, with the numbers
 */
public record AssembledContext(List<Included> included, List<Excluded> excluded, int tokensUsed, int budget,
                               boolean degraded, List<String> degradedReasons) {

    /** The part of the context an item belongs to. */
    public enum Section { HARD_RULES, SOFT_RULES, MEMORIES, RECENT_TAIL }

    /** An item that went in. */
    public record Included(ContextItem item, Section section, String reason) {
    }

    /** An item that was left out. */
    public record Excluded(ContextItem item, Section section, String reason) {
    }

    public AssembledContext {
        included = List.copyOf(included);
        excluded = List.copyOf(excluded);
        degradedReasons = List.copyOf(degradedReasons);
    }
}
