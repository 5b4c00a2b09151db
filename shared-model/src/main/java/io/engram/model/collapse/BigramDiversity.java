package io.engram.model.collapse;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Bigram diversity of a text (docs/contracts.md §D.4): lowercase, split on whitespace, drop empties; fewer than 2 words
 * gives 1; otherwise distinct adjacent word pairs / (words − 1). Repetitive, bland text scores low.
 */
public final class BigramDiversity {

    private BigramDiversity() {
    }

    public static double of(String text) {
        String[] words = text.toLowerCase(Locale.ROOT).trim().split("\\s+");
        int n = words.length == 1 && words[0].isEmpty() ? 0 : words.length;
        if (n < 2) {
            return 1.0;
        }
        Set<String> pairs = new HashSet<>();
        for (int i = 1; i < n; i++) {
            pairs.add(words[i - 1] + ' ' + words[i]);
        }
        return pairs.size() / (double) (n - 1);
    }
}
