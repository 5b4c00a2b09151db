package io.engram.model.retrieval;

import java.util.List;
import java.util.regex.Pattern;

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

    /** A rule's own list marker, which the rendering replaces with its own. */
    private static final Pattern LIST_MARKER = Pattern.compile("^(?:[-*+]|\\d{1,3}[.)])\\s+");

    /** The part of the context an item belongs to. */
    public enum Section {
        HARD_RULES("Rules you must follow"), SOFT_RULES("Guidelines"), MEMORIES("What you remember"),
        RECENT_TAIL("The conversation so far");

        private final String heading;

        Section(String heading) {
            this.heading = heading;
        }
    }

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

    /**
     * The context as an agent pastes it into its prompt: a heading per non-empty section, in rendering order, then
     * one line per item, {@code - text [id]} (a rule's own list marker dropped), so that what the model cites can
     * be traced back to a record.
     */
    public String promptText() {
        StringBuilder text = new StringBuilder();
        Section current = null;
        for (Included i : included) {
            if (i.section() != current) {
                current = i.section();
                text.append(text.isEmpty() ? "" : "\n").append("## ").append(current.heading).append('\n');
            }
            String line = LIST_MARKER.matcher(i.item().text().strip()).replaceFirst("").replace("\n", "\n  ");
            text.append("- ").append(line).append(" [").append(i.item().id()).append("]\n");
        }
        return text.toString();
    }
}
