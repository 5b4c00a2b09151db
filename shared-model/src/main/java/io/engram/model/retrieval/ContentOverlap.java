package io.engram.model.retrieval;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * How much of a text a context already says: the containment {@code |B(t) ∩ B(C)| / |B(t)|} of the text's word
 * bigrams B(t) in the bigrams of the texts C added so far (words: lowercase runs of letters and digits; a
 * one-word text is compared by its word). Containment, not similarity: a turn quoted inside a summary is fully
 * contained in it whatever the summary's length, and a summary made of turns already present is mostly
 * contained in them. Not thread-safe: one per assembled context.
 */
public final class ContentOverlap {

    private final Set<String> seen = new HashSet<>();

    /** Adds a text to what the context says. */
    public void add(String text) {
        seen.addAll(grams(text));
    }

    /** The fraction of {@code text}'s bigrams already added, in [0, 1]; 0 for a text without words. */
    public double containment(String text) {
        Set<String> grams = new HashSet<>(grams(text));
        if (grams.isEmpty()) {
            return 0;
        }
        int contained = 0;
        for (String g : grams) {
            if (seen.contains(g)) {
                contained++;
            }
        }
        return contained / (double) grams.size();
    }

    static List<String> grams(String text) {
        List<String> words = new ArrayList<>();
        for (String w : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
            if (!w.isEmpty()) {
                words.add(w);
            }
        }
        if (words.size() == 1) {
            return words;
        }
        List<String> grams = new ArrayList<>(Math.max(0, words.size() - 1));
        for (int i = 1; i < words.size(); i++) {
            grams.add(words.get(i - 1) + ' ' + words.get(i));
        }
        return grams;
    }
}
