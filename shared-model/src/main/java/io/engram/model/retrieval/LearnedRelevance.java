package io.engram.model.retrieval;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A learned ranking of a query's hits: each hit is described by {@link #FEATURES} — how the two retrievers found it,
 * where it stands among the others, what of the query it holds — and scored {@code σ(w · f) / max(1, tokens)}: the
 * probability that it holds evidence for the query, under a logistic regression fitted offline on labelled
 * conversations ({@code tools/fit-learned-relevance}, docs/algorithms.md), per token it would take of a budget. The
 * features of a hit depend on the whole list (its fused score against the best, its session's share), so a list is
 * scored at once.
 */
public final class LearnedRelevance extends LearnedWeights {

    /** What each weight multiplies, in order. */
    public static final List<String> FEATURES = List.of("bias", "lexical", "lexical_rank", "vector", "vector_rank",
            "cosine", "cosine_gap", "fused", "window", "query_words", "speaker_named", "tokens", "session_share",
            "session_best");

    /** All weights 0: every hit equally likely, so the shortest first. */
    public static final LearnedRelevance NONE = new LearnedRelevance(new double[FEATURES.size()]);
    /** The weights the product ships ({@code learned-relevance.tsv} beside this class). */
    public static final LearnedRelevance DEFAULT = resource(LearnedRelevance.class, "learned-relevance.tsv")
            .orElseThrow(() -> new IllegalStateException("no learned-relevance.tsv beside " + LearnedRelevance.class.getName()));

    private static final double TOKENS_SCALE = Math.log(257);

    /** @param weights one per {@link #FEATURES}, in order */
    public LearnedRelevance(double[] weights) {
        super(weights, FEATURES);
    }

    /**
     * One hit as the retrievers returned it.
     *
     * @param lexicalRank 1-based BM25 rank, or null when BM25 did not return it
     * @param vectorRank  1-based k-NN rank, or null
     * @param fused       its reciprocal-rank-fusion score
     */
    public record Hit(String text, String sessionId, boolean window, Integer lexicalRank, Integer vectorRank,
                      double cosine, double fused, int tokens) {
    }

    /**
     * Weights written one per line as {@code feature<TAB>weight}, every feature of {@link #FEATURES} once, in order
     * (lines starting with # aside).
     */
    public static LearnedRelevance parse(String tsv) {
        return new LearnedRelevance(LearnedWeights.parse(tsv, FEATURES));
    }

    /** The weights in the resource {@code name} beside {@code owner}, as {@link #parse} reads them; empty without one. */
    public static Optional<LearnedRelevance> resource(Class<?> owner, String name) {
        return LearnedWeights.resource(owner, name, FEATURES).map(LearnedRelevance::new);
    }

    /** Each hit's probability of holding evidence for {@code query}, per token, in the order of {@code hits}. */
    public double[] scores(String query, List<Hit> hits) {
        double[][] features = features(query, hits);
        double[] scores = new double[hits.size()];
        for (int i = 0; i < scores.length; i++) {
            scores[i] = probability(features[i]) / Math.max(1, hits.get(i).tokens());
        }
        return scores;
    }

    /** The probability a hit scored {@code score} by {@link #scores} has of holding evidence: its score times its tokens. */
    public static double probability(double score, int tokens) {
        return score * Math.max(1, tokens);
    }

    /** Each hit's {@link #FEATURES}, in the order of {@code hits}. */
    public static double[][] features(String query, List<Hit> hits) {
        Set<String> wanted = WindowTurnFocus.contentWords(query);
        Set<String> names = SpeakerMatch.named(query);
        double bestCosine = hits.stream().mapToDouble(Hit::cosine).max().orElse(0);
        double bestFused = hits.stream().mapToDouble(Hit::fused).max().orElse(0);
        Map<String, Integer> perSession = new HashMap<>();
        Map<String, Double> sessionBest = new HashMap<>();
        for (Hit h : hits) {
            String session = h.sessionId() == null ? "" : h.sessionId();
            perSession.merge(session, 1, Integer::sum);
            sessionBest.merge(session, h.fused(), Math::max);
        }
        double[][] features = new double[hits.size()][];
        for (int i = 0; i < features.length; i++) {
            Hit h = hits.get(i);
            String session = h.sessionId() == null ? "" : h.sessionId();
            String speaker = SpeakerMatch.speaker(h.text());
            features[i] = new double[] {
                    1,
                    h.lexicalRank() == null ? 0 : 1,
                    rank(h.lexicalRank()),
                    h.vectorRank() == null ? 0 : 1,
                    rank(h.vectorRank()),
                    h.cosine(),
                    h.cosine() - bestCosine,
                    bestFused > 0 ? h.fused() / bestFused : 0,
                    h.window() ? 1 : 0,
                    wanted.isEmpty() ? 0 : WindowTurnFocus.matches(wanted, h.text()) / (double) wanted.size(),
                    speaker != null && names.contains(speaker) ? 1 : 0,
                    Math.log1p(h.tokens()) / TOKENS_SCALE,
                    perSession.get(session) / (double) hits.size(),
                    bestFused > 0 ? sessionBest.get(session) / bestFused : 0};
        }
        return features;
    }

    /** A rank as 1 / (1 + ln rank): 1 for the first, about 0.2 for the fiftieth; 0 when absent. */
    private static double rank(Integer rank) {
        return rank == null ? 0 : 1 / (1 + Math.log(rank));
    }
}
