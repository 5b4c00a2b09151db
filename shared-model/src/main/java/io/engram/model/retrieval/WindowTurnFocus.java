package io.engram.model.retrieval;

import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * Which turns of a window that won a place in a context come in at the window's score: its {@code keep} turns
 * that matter most to the query, the others at {@code restWeight} times that score, so that within a small budget
 * they follow every other candidate instead of filling it with five or six turns of each of the first windows. A
 * turn matters more when it scored as a hit of its own (its own score), then when it holds more of the query's
 * content words (lower-cased runs of four or more letters or digits, stop words aside, compared by their first
 * five characters so that "painted" meets "paints"), then when it comes earlier in the window.
 *
 * @param keep       how many turns of a window keep its score, at least 1
 * @param restWeight in [0, 1], the share of the window's score the others get; 1 with any keep leaves every turn at it
 */
public record WindowTurnFocus(int keep, double restWeight) {

    /** Every turn of a window at the window's score. */
    public static final WindowTurnFocus NONE = new WindowTurnFocus(Integer.MAX_VALUE, 1);

    private static final int MIN_WORD_LENGTH = 4;
    private static final int STEM_LENGTH = 5;
    private static final Set<String> STOP_WORDS = Set.of("what", "when", "where", "which", "whom", "whose", "does",
            "did", "have", "has", "that", "this", "with", "from", "they", "their", "them", "about", "would", "could",
            "should", "there", "were", "been", "into", "some", "many", "much", "kind", "like", "your", "other");

    public WindowTurnFocus {
        if (keep < 1 || restWeight < 0 || restWeight > 1) {
            throw new IllegalArgumentException("keep must be positive and restWeight in [0, 1]: " + keep + ", " + restWeight);
        }
    }

    /**
     * @param query       the question
     * @param windowScore the window's score
     * @param texts       the window's turns, in order
     * @param ownScores   each turn's own score among the hits, 0 when it is not one, in the same order
     * @return each turn's score as part of the window, in the same order
     */
    public double[] scores(String query, double windowScore, List<String> texts, double[] ownScores) {
        if (texts.size() != ownScores.length) {
            throw new IllegalArgumentException(texts.size() + " texts for " + ownScores.length + " scores");
        }
        Set<String> wanted = contentWords(query);
        int[] matched = texts.stream().mapToInt(t -> matches(wanted, t)).toArray();
        int[] order = IntStream.range(0, texts.size()).boxed()
                .sorted(Comparator.comparingDouble((Integer i) -> -ownScores[i]).thenComparingInt(i -> -matched[i])
                        .thenComparingInt(i -> i))
                .mapToInt(Integer::intValue).toArray();
        double[] scores = new double[texts.size()];
        for (int rank = 0; rank < order.length; rank++) {
            scores[order[rank]] = rank < keep ? windowScore : windowScore * restWeight;
        }
        return scores;
    }

    /** How many of {@code wanted} (stems of {@link #contentWords}) {@code text} holds. */
    static int matches(Set<String> wanted, String text) {
        Set<String> held = contentWords(text);
        held.retainAll(wanted);
        return held.size();
    }

    /** The stems of the content words of {@code text}. */
    static Set<String> contentWords(String text) {
        Set<String> stems = new HashSet<>();
        for (String w : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
            if (w.length() >= MIN_WORD_LENGTH && !STOP_WORDS.contains(w)) {
                stems.add(w.substring(0, Math.min(STEM_LENGTH, w.length())));
            }
        }
        return stems;
    }
}
