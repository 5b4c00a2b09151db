package io.engram.model.retrieval;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A learned score for every memory a context could hold, however it came: retrieved itself, one of a retrieved
 * window's turns, or a turn next to a retrieved turn. Each is described by {@link #FEATURES} — the learned
 * probability of the hits that brought it ({@link LearnedRelevance}), how it came, what of the query it holds — and
 * scored {@code σ(w · f) / max(1, tokens)^0.7}: its probability of being evidence for the query under a logistic
 * regression fitted offline on labelled conversations (tools/fit-learned-relevance, docs/algorithms.md), per token it
 * would take of a budget, the tokens discounted so that a long turn that is likely evidence is not passed over for
 * short ones that are not.
 */
public final class LearnedTurnRelevance extends LearnedWeights {

    /** What each weight multiplies, in order. */
    public static final List<String> FEATURES = List.of("bias", "hit", "hit_probability", "hit_rank", "window",
            "window_probability", "window_focus", "neighbour_1", "neighbour_2", "neighbour_only", "query_words",
            "speaker_named", "tokens", "windows");

    /** The weights the product ships ({@code learned-turn-relevance.tsv} beside this class). */
    public static final LearnedTurnRelevance DEFAULT = resource(LearnedTurnRelevance.class, "learned-turn-relevance.tsv")
            .orElseThrow(() -> new IllegalStateException("no learned-turn-relevance.tsv beside " + LearnedTurnRelevance.class.getName()));

    private static final double TOKENS_EXPONENT = 0.7;
    private static final double TOKENS_SCALE = Math.log(257);
    private static final int MAX_WINDOWS = 3;

    /** @param weights one per {@link #FEATURES}, in order */
    public LearnedTurnRelevance(double[] weights) {
        super(weights, FEATURES);
    }

    /**
     * One memory a context could hold, with how it came.
     *
     * @param hitProbability    its own {@link LearnedRelevance} probability when it was retrieved itself, else 0
     * @param hitRank           its 1-based rank among the retrieved memories, or 0 when it was not retrieved itself
     * @param windowProbability the best probability of the retrieved windows that hold it, or 0
     * @param windowFocus       whether it is among the two turns that matter most of a window that holds it
     *                          ({@link WindowTurnFocus})
     * @param windows           how many retrieved windows hold it
     * @param neighbour1        the best probability of a retrieved turn next to it, or 0
     * @param neighbour2        the best probability of a retrieved turn two turns away, or 0
     */
    public record Candidate(String text, int tokens, double hitProbability, int hitRank, double windowProbability,
                            boolean windowFocus, int windows, double neighbour1, double neighbour2) {
    }

    /**
     * Weights written one per line as {@code feature<TAB>weight}, every feature of {@link #FEATURES} once, in order
     * (lines starting with # aside).
     */
    public static LearnedTurnRelevance parse(String tsv) {
        return new LearnedTurnRelevance(LearnedWeights.parse(tsv, FEATURES));
    }

    /** The weights in the resource {@code name} beside {@code owner}, as {@link #parse} reads them; empty without one. */
    public static Optional<LearnedTurnRelevance> resource(Class<?> owner, String name) {
        return LearnedWeights.resource(owner, name, FEATURES).map(LearnedTurnRelevance::new);
    }

    /** Each candidate's probability of being evidence for {@code query}, per discounted token, in order. */
    public double[] scores(String query, List<Candidate> candidates) {
        Set<String> wanted = WindowTurnFocus.contentWords(query);
        Set<String> names = SpeakerMatch.named(query);
        double[] scores = new double[candidates.size()];
        for (int i = 0; i < scores.length; i++) {
            Candidate c = candidates.get(i);
            scores[i] = probability(features(wanted, names, c))
                    / Math.pow(Math.max(1, c.tokens()), TOKENS_EXPONENT);
        }
        return scores;
    }

    /** A candidate's {@link #FEATURES}. */
    public static double[] features(String query, Candidate c) {
        return features(WindowTurnFocus.contentWords(query), SpeakerMatch.named(query), c);
    }

    private static double[] features(Set<String> wanted, Set<String> names, Candidate c) {
        String speaker = SpeakerMatch.speaker(c.text());
        boolean hit = c.hitRank() > 0;
        return new double[] {
                1,
                hit ? 1 : 0,
                c.hitProbability(),
                hit ? 1 / (1 + Math.log(c.hitRank())) : 0,
                c.windows() > 0 ? 1 : 0,
                c.windowProbability(),
                c.windowFocus() ? 1 : 0,
                c.neighbour1(),
                c.neighbour2(),
                c.neighbour1() > 0 && !hit ? 1 : 0,
                wanted.isEmpty() ? 0 : WindowTurnFocus.matches(wanted, c.text()) / (double) wanted.size(),
                speaker != null && names.contains(speaker) ? 1 : 0,
                Math.log1p(c.tokens()) / TOKENS_SCALE,
                Math.min(c.windows(), MAX_WINDOWS) / (double) MAX_WINDOWS};
    }
}
