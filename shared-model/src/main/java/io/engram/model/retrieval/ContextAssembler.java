package io.engram.model.retrieval;

import io.engram.model.retrieval.AssembledContext.Excluded;
import io.engram.model.retrieval.AssembledContext.Included;
import io.engram.model.retrieval.AssembledContext.Section;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Context assembly within τ tokens (docs/contracts.md §E.3, §E.4): tier-1 rules always (they were bounded at
 * load); then the recent raw tail; then tier-2 rules by longest prefix in document order under
 * {@code min(⌊α2·τ⌋, τ − hard − tail)}; then lore and memories by score, greedily, in what is left. When the
 * mandatory parts alone exceed τ they are kept and the result is marked degraded.
 *
 * <p>A memory the context already says is left out: when at least {@code duplicateContainment} of its word
 * bigrams are in what was included before it ({@link ContentOverlap}) — the same fact as a turn, a gateway memory
 * and a summary line goes in once, with the budget it would have taken left to other memories.
 */
public final class ContextAssembler {

    /** Off: {@code duplicateContainment} above 1 leaves every memory in. */
    public static final double KEEP_DUPLICATES = 1.01;

    private final double alpha2;
    private final double duplicateContainment;

    /**
     * @param alpha2               α2, the soft-rule share of τ
     * @param duplicateContainment the containment from which a memory counts as already said (in (0, 1], or
     *                             {@link #KEEP_DUPLICATES})
     */
    public ContextAssembler(double alpha2, double duplicateContainment) {
        if (alpha2 < 0 || alpha2 > 1) {
            throw new IllegalArgumentException("alpha2 must be in [0, 1]: " + alpha2);
        }
        if (!(duplicateContainment > 0)) {
            throw new IllegalArgumentException("duplicateContainment must be positive: " + duplicateContainment);
        }
        this.alpha2 = alpha2;
        this.duplicateContainment = duplicateContainment;
    }

    /**
     * @param budget     τ
     * @param hardRules  tier-1 rules, in document order
     * @param tail       the recent raw tail, chronological
     * @param softRules  tier-2 rules, in document order
     * @param candidates lore, memories and summaries with their scores, any order
     */
    public AssembledContext assemble(int budget, List<ContextItem> hardRules, List<ContextItem> tail,
                                     List<ContextItem> softRules, List<ContextItem> candidates) {
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

        int hardTokens = 0;
        for (ContextItem rule : hardRules) {
            hard.add(new Included(rule, Section.HARD_RULES, "hard rule: always included"));
            hardTokens += rule.tokens();
            seen.add(rule.id());
            said.add(rule.text());
        }
        if (hardTokens > budget) {
            degraded.add("hard rules take " + hardTokens + " tokens, over the budget of " + budget);
        }
        int tailTokens = 0;
        for (ContextItem turn : tail) {
            recent.add(new Included(turn, Section.RECENT_TAIL, "recent raw tail: kept verbatim"));
            tailTokens += turn.tokens();
            seen.add(turn.id());
            said.add(turn.text());
        }
        if (hardTokens <= budget && hardTokens + tailTokens > budget) {
            degraded.add("hard rules (" + hardTokens + ") and the recent tail (" + tailTokens
                    + ") take " + (hardTokens + tailTokens) + " tokens, over the budget of " + budget);
        }

        long softLimit = Math.max(0, Math.min((long) Math.floor(alpha2 * budget + 1e-9),
                (long) budget - hardTokens - tailTokens));
        int softTokens = 0;
        boolean cut = false;
        for (ContextItem rule : softRules) {
            if (!cut && softTokens + rule.tokens() <= softLimit) {
                soft.add(new Included(rule, Section.SOFT_RULES, "soft rule: within the prefix budget of " + softLimit));
                softTokens += rule.tokens();
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
        for (ContextItem candidate : ranked) {
            double containment;
            if (!seen.add(candidate.id())) {
                excluded.add(new Excluded(candidate, Section.MEMORIES, "already in the context"));
            } else if ((containment = said.containment(candidate.text())) >= duplicateContainment) {
                excluded.add(new Excluded(candidate, Section.MEMORIES, String.format(Locale.ROOT,
                        "score %.4f, near-duplicate: %.0f%% of its word pairs are already in the context",
                        candidate.score(), 100 * containment)));
            } else if (candidate.tokens() <= left) {
                memories.add(new Included(candidate, Section.MEMORIES,
                        String.format(Locale.ROOT, "score %.4f, fits (%d of %d tokens left)", candidate.score(),
                                candidate.tokens(), left)));
                left -= candidate.tokens();
                memoryTokens += candidate.tokens();
                said.add(candidate.text());
            } else {
                excluded.add(new Excluded(candidate, Section.MEMORIES, String.format(Locale.ROOT,
                        "score %.4f, does not fit: needs %d tokens, %d left", candidate.score(), candidate.tokens(),
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
