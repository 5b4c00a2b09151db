package io.engram.model.deontic;

import java.util.Locale;

/**
 * A fixed set of lower-case words, looked up by a region of a text without allocating: case is folded and
 * format characters (zero-width joiners and spaces, bidi marks) are skipped while hashing and comparing, and
 * the typographic apostrophe matches the ASCII one.
 */
final class WordSet {

    private final String[] slots;
    private final int mask;

    WordSet(String... words) {
        int capacity = Integer.highestOneBit(Math.max(4, words.length * 4) - 1) << 1;
        slots = new String[capacity];
        mask = capacity - 1;
        for (String word : words) {
            String w = word.toLowerCase(Locale.ROOT);
            int slot = hash(w.toCharArray(), 0, w.length()) & mask;
            while (slots[slot] != null && !slots[slot].equals(w)) {
                slot = (slot + 1) & mask;
            }
            slots[slot] = w;
        }
    }

    boolean contains(char[] text, int start, int end) {
        return contains(hash(text, start, end), text, start, end);
    }

    /** Lookup with a precomputed {@link #hash} of the region, so one word can be tried against many sets. */
    boolean contains(int hash, char[] text, int start, int end) {
        int slot = hash & mask;
        while (slots[slot] != null) {
            if (equalsWord(text, start, end, slots[slot])) {
                return true;
            }
            slot = (slot + 1) & mask;
        }
        return false;
    }

    static int hash(char[] text, int start, int end) {
        int h = 0;
        for (int i = start; i < end; i++) {
            char c = text[i];
            if (ignorable(c)) {
                continue;
            }
            h = 31 * h + fold(c);
        }
        int mixed = h ^ (h >>> 16);
        return mixed == 0 ? 1 : mixed; // 0 is the lexer's "not computed yet"
    }

    /** Whether {@code text[start, end)} is {@code word} (lower case), ignoring case and format characters. */
    static boolean equalsWord(char[] text, int start, int end, String word) {
        int j = 0;
        for (int i = start; i < end; i++) {
            char c = text[i];
            if (ignorable(c)) {
                continue;
            }
            if (j >= word.length() || fold(c) != word.charAt(j)) {
                return false;
            }
            j++;
        }
        return j == word.length();
    }

    static char fold(char c) {
        if (c == '\u2019' || c == '\u2018') {
            return '\'';
        }
        return c < 128 ? (c >= 'A' && c <= 'Z' ? (char) (c + 32) : c) : Character.toLowerCase(c);
    }

    /** Zero-width and bidi control characters: invisible, so they must not hide or split a word. */
    static boolean ignorable(char c) {
        return c >= 0x80 && Character.getType(c) == Character.FORMAT;
    }
}
