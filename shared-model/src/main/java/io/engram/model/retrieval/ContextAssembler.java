package io.engram.model.retrieval;

import io.engram.model.retrieval.AssembledContext.Excluded;
import io.engram.model.retrieval.AssembledContext.Included;
import io.engram.model.retrieval.AssembledContext.Section;
import io.engram.model.tokens.TokenCounter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Context assembly within τ tokens (docs/contracts.md §E.3, §E.4): tier-1 rules, all of them when they fit τ; then
 * the recent raw tail, its newest turns first, in what is left; then tier-2 rules by longest prefix in document order
 * under {@code min(⌊α2·τ⌋, τ − hard − tail)}; then lore and memories by score, greedily, in what is left. The budget
 * is a promise: when the hard rules alone exceed τ, the context takes them in {@link RulePriority}'s order while they
 * fit, lists each one left out, and is marked degraded; so is a tail cut short. Only a caller that asks for every
 * rule ({@code allRules}) gets a context over τ, which says by how much.
 *
 * <p>A memory the context already says is left out: when at least {@code duplicateContainment} of its word
 * bigrams are in what was included before it ({@link ContentOverlap}) — the same fact as a turn, a gateway memory
 * and a summary line goes in once, with the budget it would have taken left to other memories.
 *
 * <p>An item costs what it adds to the prompt text ({@link AssembledContext#promptText()}): its text's tokens, and
 * its date line's ({@link ItemDate#line()}) when it is the first item of that date in its section, counted by the
 * tokenizer that counted the texts.
 */
public final class ContextAssembler {

    /** Off: {@code duplicateContainment} above 1 leaves every memory in. */
    public static final double KEEP_DUPLICATES = 1.01;

    private final double alpha2;
    private final double duplicateContainment;
    private final TokenCounter tokens;

    /**
     * @param alpha2               α2, the soft-rule share of τ
     * @param duplicateContainment the containment from which a memory counts as already said (in (0, 1], or
     *                             {@link #KEEP_DUPLICATES})
     * @param tokens               counts the tokens of the date lines
     */
    public ContextAssembler(double alpha2, double duplicateContainment, TokenCounter tokens) {
        if (alpha2 < 0 || alpha2 > 1) {
            throw new IllegalArgumentException("alpha2 must be in [0, 1]: " + alpha2);
        }
        if (!(duplicateContainment > 0)) {
            throw new IllegalArgumentException("duplicateContainment must be positive: " + duplicateContainment);
        }
        this.alpha2 = alpha2;
        this.duplicateContainment = duplicateContainment;
        this.tokens = tokens;
    }

    /** The date lines one section of the prompt has so far, and what an item would add to it. */
    private final class SectionDates {
        private final Set<String> lines = new HashSet<>();

        /** The tokens {@code item} adds to the section: its text's, and its date line's if the section lacks it. */
        int cost(ContextItem item) {
            boolean newDate = item.date() != null && !lines.contains(item.date().line());
            return item.tokens() + (newDate ? tokens.count(item.date().line()) : 0);
        }

        /** What {@code items} cost as one section, in this order. */
        int costOf(List<ContextItem> items) {
            int total = 0;
            for (ContextItem item : items) {
                total += add(item);
            }
            return total;
        }

        /** Adds {@code item} to the section: returns what it cost. */
        int add(ContextItem item) {
            int cost = cost(item);
            if (item.date() != null) {
                lines.add(item.date().line());
            }
            return cost;
        }
    }

    /** {@link #assemble(int, String, boolean, List, List, List, List)} without a query, within the budget. */
    public AssembledContext assemble(int budget, List<ContextItem> hardRules, List<ContextItem> tail,
                                     List<ContextItem> softRules, List<ContextItem> candidates) {
        return assemble(budget, null, false, hardRules, tail, softRules, candidates);
    }

    /** The rules, in the order given, that fit {@code budget} as one section: each taken if it fits what is left. */
    private List<ContextItem> fitting(List<ContextItem> ordered, int budget) {
        List<ContextItem> taken = new ArrayList<>();
        SectionDates dates = new SectionDates();
        int left = budget;
        for (ContextItem item : ordered) {
            int cost = dates.cost(item);
            if (cost <= left) {
                left -= dates.add(item);
                taken.add(item);
            }
        }
        return taken;
    }

    /** The newest turns of a chronological tail that fit {@code budget} together, chronological. */
    private List<ContextItem> newestFitting(List<ContextItem> tail, int budget) {
        SectionDates dates = new SectionDates();
        int start = tail.size();
        int left = budget;
        while (start > 0) {
            int cost = dates.cost(tail.get(start - 1));
            if (cost > left) {
                break; // a tail is contiguous: once a turn does not fit, no older one is taken
            }
            left -= dates.add(tail.get(start - 1));
            start--;
        }
        return tail.subList(start, tail.size());
    }

    /**
     * @param budget     τ
     * @param query      what the context is for: which hard rules it takes first when they do not all fit; may be null
     * @param allRules   every hard rule, whatever the budget
     * @param hardRules  tier-1 rules, in document order
     * @param tail       the recent raw tail, chronological
     * @param softRules  tier-2 rules, in document order
     * @param candidates lore, memories and summaries with their scores, any order
     */
    public AssembledContext assemble(int budget, String query, boolean allRules, List<ContextItem> hardRules,
                                     List<ContextItem> tail, List<ContextItem> softRules, List<ContextItem> candidates) {
        if (budget <= 0) {
            throw new IllegalArgumentException("budget must be positive: " + budget);
        }
        List<Included> hard = new ArrayList<>();
        List<Included> soft = new ArrayList<>();
        List<Included> memories = new ArrayList<>();
        List<Included> recent = new ArrayList<>();
        List<Excluded> excluded = new ArrayList<>();
        List<String> degraded = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        ContentOverlap said = new ContentOverlap();

        int allHard = new SectionDates().costOf(hardRules);
        List<ContextItem> takenRules = hardRules;
        if (allHard > budget && allRules) {
            degraded.add("every hard rule asked for: they take " + allHard + " tokens, " + (allHard - budget)
                    + " over the budget of " + budget);
        } else if (allHard > budget) {
            takenRules = fitting(RulePriority.order(hardRules, query), budget);
            Set<ContextItem> taken = new HashSet<>(takenRules);
            takenRules = hardRules.stream().filter(taken::contains).toList(); // shown in document order
            String why = "hard rule left out: the hard rules take " + allHard + " tokens, over the budget of " + budget
                    + "; taken binding first, then nearest the query";
            hardRules.stream().filter(r -> !taken.contains(r))
                    .forEach(r -> excluded.add(new Excluded(r, Section.HARD_RULES, why)));
            degraded.add("hard rules take " + allHard + " tokens, over the budget of " + budget + ": " + takenRules.size()
                    + " of " + hardRules.size() + " taken (prohibitions and obligations first, then nearest the query),"
                    + " the others in excluded");
        }
        int hardTokens = 0;
        SectionDates hardDates = new SectionDates();
        for (ContextItem rule : takenRules) {
            int cost = hardDates.add(rule);
            hard.add(new Included(rule, Section.HARD_RULES, cost, "hard rule: always included when the rules fit"));
            hardTokens += cost;
            seen.add(rule.id());
            said.add(rule.text());
        }
        List<ContextItem> recentTail = newestFitting(tail, Math.max(0, budget - hardTokens));
        int tailTokens = 0;
        SectionDates tailDates = new SectionDates();
        for (ContextItem turn : recentTail) {
            int cost = tailDates.add(turn);
            recent.add(new Included(turn, Section.RECENT_TAIL, cost, "recent raw tail: kept verbatim"));
            tailTokens += cost;
            seen.add(turn.id());
            said.add(turn.text());
        }
        if (recentTail.size() < tail.size()) {
            String why = "recent tail: older than the turns that fit the " + Math.max(0, budget - hardTokens)
                    + " tokens left after the hard rules";
            tail.subList(0, tail.size() - recentTail.size())
                    .forEach(t -> excluded.add(new Excluded(t, Section.RECENT_TAIL, why)));
            degraded.add("the recent tail takes " + new SectionDates().costOf(tail) + " tokens: its newest "
                    + recentTail.size() + " of " + tail.size() + " turns fit the " + Math.max(0, budget - hardTokens)
                    + " tokens left after the hard rules");
        }

        long softLimit = Math.max(0, Math.min((long) Math.floor(alpha2 * budget + 1e-9),
                (long) budget - hardTokens - tailTokens));
        int softTokens = 0;
        boolean cut = false;
        SectionDates softDates = new SectionDates();
        for (ContextItem rule : softRules) {
            int cost = softDates.cost(rule);
            if (!cut && softTokens + cost <= softLimit) {
                softDates.add(rule);
                soft.add(new Included(rule, Section.SOFT_RULES, cost, "soft rule: within the prefix budget of " + softLimit));
                softTokens += cost;
                seen.add(rule.id());
                said.add(rule.text());
            } else {
                cut = true; // a prefix: everything after the first rule that does not fit is cut
                excluded.add(new Excluded(rule, Section.SOFT_RULES, "soft-rule budget min(alpha2*tau, tau - hard - tail) = "
                        + softLimit + " tokens reached"));
            }
        }

        long left = (long) budget - hardTokens - tailTokens - softTokens;
        List<ContextItem> ranked = new ArrayList<>(candidates);
        ranked.sort(Comparator.comparingDouble(ContextItem::score).reversed());
        int memoryTokens = 0;
        SectionDates memoryDates = new SectionDates();
        for (ContextItem candidate : ranked) {
            int cost = memoryDates.cost(candidate);
            double containment;
            if (!seen.add(candidate.id())) {
                excluded.add(new Excluded(candidate, Section.MEMORIES, "already in the context"));
            } else if ((containment = said.containment(candidate.text())) >= duplicateContainment) {
                excluded.add(new Excluded(candidate, Section.MEMORIES, String.format(Locale.ROOT,
                        "score %.4f, near-duplicate: %.0f%% of its word pairs are already in the context",
                        candidate.score(), 100 * containment)));
            } else if (cost <= left) {
                memoryDates.add(candidate);
                memories.add(new Included(candidate, Section.MEMORIES, cost,
                        String.format(Locale.ROOT, "score %.4f, fits (%d of %d tokens left)", candidate.score(),
                                cost, left)));
                left -= cost;
                memoryTokens += cost;
                said.add(candidate.text());
            } else {
                excluded.add(new Excluded(candidate, Section.MEMORIES, String.format(Locale.ROOT,
                        "score %.4f, does not fit: needs %d tokens, %d left", candidate.score(), cost,
                        Math.max(0, left))));
            }
        }

        List<Included> included = new ArrayList<>(hard);
        included.addAll(soft);
        included.addAll(memories);
        included.addAll(recent);
        int used = hardTokens + tailTokens + softTokens + memoryTokens;
        return new AssembledContext(included, excluded, used, budget, !degraded.isEmpty(), degraded);
    }
}
