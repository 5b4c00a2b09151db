package io.engram.model.retrieval;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A token-budgeted context: what went in and why, what was left out and why.
 *
 * @param included        by section in rendering order (hard rules, soft rules, memories, then the recent tail),
 *                        each section as assembled (memories by score; {@link #promptText()} orders them by date)
 * @param excluded        every candidate left out, with the reason
 * @param tokensUsed      Σ tokens of the included items, their dates' among them
 * @param budget          τ
 * @param degraded        the mandatory parts (hard rules, recent tail) did not all fit τ: some were left out, or, asked
 *                        for every rule, kept over τ
 * @param degradedReasons why, with the numbers
 * @param agentId         the agent whose documents the context holds ({@link AgentScope}); null for the tenant's
 *                        shared documents only
 */
public record AssembledContext(List<Included> included, List<Excluded> excluded, int tokensUsed, int budget,
                               boolean degraded, List<String> degradedReasons, String agentId) {

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

    /** An item that went in, and the tokens it took: its text's, and its date line's if it is the first of its date. */
    public record Included(ContextItem item, Section section, int tokens, String reason) {
    }

    /** An item that was left out. */
    public record Excluded(ContextItem item, Section section, String reason) {
    }

    public AssembledContext {
        included = List.copyOf(included);
        excluded = List.copyOf(excluded);
        degradedReasons = List.copyOf(degradedReasons);
    }

    /** A context of no particular agent. */
    public AssembledContext(List<Included> included, List<Excluded> excluded, int tokensUsed, int budget,
                            boolean degraded, List<String> degradedReasons) {
        this(included, excluded, tokensUsed, budget, degraded, degradedReasons, null);
    }

    /** This context, for {@code agent}. */
    public AssembledContext forAgent(String agent) {
        return new AssembledContext(included, excluded, tokensUsed, budget, degraded, degradedReasons, agent);
    }

    /**
     * The context as an agent pastes it into its prompt: a heading per non-empty section, in rendering order, then
     * its items, one line each, {@code - text [id]} (a rule's own list marker dropped), so that what the model cites
     * can be traced back to a record. Within a section the undated items (rules) come first, as they are; then the
     * dated ones under a line with their date ({@link ItemDate}), dates in time order and a date's items in the
     * order they were said, so that the model can order facts by when they were said or hold.
     */
    public String promptText() {
        Map<Section, List<ContextItem>> bySection = new LinkedHashMap<>();
        included.forEach(i -> bySection.computeIfAbsent(i.section(), s -> new ArrayList<>()).add(i.item()));
        StringBuilder text = new StringBuilder();
        bySection.forEach((section, items) -> {
            text.append(text.isEmpty() ? "" : "\n").append("## ").append(section.heading).append('\n');
            String date = null;
            for (ContextItem item : byDate(items)) {
                if (item.date() != null && !item.date().line().equals(date)) {
                    date = item.date().line();
                    text.append(date);
                }
                String line = LIST_MARKER.matcher(item.text().strip()).replaceFirst("").replace("\n", "\n  ");
                text.append("- ").append(line).append(" [").append(item.id()).append("]\n");
            }
        });
        return text.toString();
    }

    /** A section's items in the prompt's order: the undated as they are, then the dated by date and time said. */
    private static List<ContextItem> byDate(List<ContextItem> items) {
        List<ContextItem> ordered = new ArrayList<>();
        Map<String, List<ContextItem>> byLine = new LinkedHashMap<>();
        for (ContextItem item : items) {
            if (item.date() == null) {
                ordered.add(item);
            } else {
                byLine.computeIfAbsent(item.date().line(), d -> new ArrayList<>()).add(item);
            }
        }
        List<List<ContextItem>> dates = new ArrayList<>(byLine.values());
        dates.forEach(d -> d.sort(Comparator.comparing(i -> i.date().said())));
        dates.sort(Comparator.comparing((List<ContextItem> d) -> d.stream().map(i -> i.date().start())
                .min(Comparator.naturalOrder()).orElseThrow()).thenComparing(d -> d.get(0).date().line()));
        dates.forEach(ordered::addAll);
        return ordered;
    }
}
