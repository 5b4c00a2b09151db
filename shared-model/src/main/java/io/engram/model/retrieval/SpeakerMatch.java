package io.engram.model.retrieval;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Speaker-aware matching: a question that names a person ("What did Caroline paint?") prefers what that person
 * said. A turn's speaker is the name its text starts with before a colon ({@code "Caroline: I painted..."}, how a
 * transcript of several people is written); a hit said by a person the query names scores {@code score · (1 + w)},
 * every other keeps its score. The names a query mentions are its capitalised words (a possessive's stem too).
 *
 * @param weight w ≥ 0; 0 leaves every score as it is
 */
public record SpeakerMatch(double weight) {

    public static final SpeakerMatch NONE = new SpeakerMatch(0);

    private static final Pattern SPEAKER = Pattern.compile("^\\s*(\\p{Lu}[\\p{L}\\-]{0,40}):");
    private static final Pattern CAPITALISED = Pattern.compile("\\b(\\p{Lu}[\\p{L}\\-]*)");

    public SpeakerMatch {
        if (weight < 0) {
            throw new IllegalArgumentException("weight must not be negative: " + weight);
        }
    }

    /** The names {@code query} may mention, lower-cased. */
    public static Set<String> named(String query) {
        Set<String> names = new HashSet<>();
        Matcher m = CAPITALISED.matcher(query);
        while (m.find()) {
            names.add(m.group(1).toLowerCase(Locale.ROOT));
        }
        return names;
    }

    /** The speaker a text starts with, lower-cased, or null. */
    public static String speaker(String text) {
        Matcher m = SPEAKER.matcher(text);
        return m.find() ? m.group(1).toLowerCase(Locale.ROOT) : null;
    }

    /**
     * @param query  the question
     * @param texts  the hits' texts
     * @param scores their scores, in the same order
     * @return the scores with the named speakers' hits raised, in the same order
     */
    public double[] scores(String query, List<String> texts, double[] scores) {
        if (texts.size() != scores.length) {
            throw new IllegalArgumentException(texts.size() + " texts for " + scores.length + " scores");
        }
        Set<String> names = named(query);
        double[] matched = scores.clone();
        for (int i = 0; i < matched.length; i++) {
            String speaker = speaker(texts.get(i));
            if (speaker != null && names.contains(speaker)) {
                matched[i] *= 1 + weight;
            }
        }
        return matched;
    }
}
