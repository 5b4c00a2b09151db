package io.engram.model.deontic;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The units the rule reader reads, cut as the labelled sets cut them: a paragraph's sentences, and a list item's
 * own text whole (its marker removed, a nested list left out). A sentence ends at {@code . ! ?} (and what closes
 * after it: quotes, brackets, emphasis) before white space and a character that is not a lower-case letter, unless
 * the word before the mark is one letter or a common abbreviation ("e.g.", "vs."). Wrapped lines join with a space.
 */
public final class Sentences {

    private static final Set<String> ABBREVIATIONS = Set.of("e.g", "i.e", "etc", "vs", "cf", "approx", "incl");
    private static final String CLOSERS = "\"')]*_`”’";

    private Sentences() {
    }

    /** A paragraph's sentences, in order, each stripped; none for a blank text. */
    public static List<String> of(String paragraph) {
        String text = joinLines(paragraph);
        List<String> sentences = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != '.' && c != '!' && c != '?') {
                continue;
            }
            int end = i + 1;
            while (end < text.length() && CLOSERS.indexOf(text.charAt(end)) >= 0) {
                end++;
            }
            if (end < text.length() && Character.isWhitespace(text.charAt(end)) && endsSentence(text, i, end)) {
                add(sentences, text.substring(start, end));
                start = end;
                i = end;
            }
        }
        add(sentences, text.substring(start));
        return sentences;
    }

    /** A list item's own text: its marker removed, up to its first nested list, lines joined. */
    public static String ofItem(String item) {
        String[] lines = item.strip().split("\n");
        StringBuilder own = new StringBuilder(stripMarker(lines[0]));
        for (int l = 1; l < lines.length; l++) {
            String line = lines[l].strip();
            if (!stripMarker(line).equals(line)) {
                break; // a nested list starts
            }
            own.append(' ').append(line);
        }
        return own.toString().strip();
    }

    private static boolean endsSentence(String text, int mark, int end) {
        int next = end;
        while (next < text.length() && Character.isWhitespace(text.charAt(next))) {
            next++;
        }
        if (next == text.length() || Character.isLowerCase(text.charAt(next))) {
            return false;
        }
        if (text.charAt(mark) != '.') {
            return true;
        }
        int word = mark;
        while (word > 0 && !Character.isWhitespace(text.charAt(word - 1)) && text.charAt(word - 1) != '(') {
            word--;
        }
        String before = text.substring(word, mark).toLowerCase(Locale.ROOT);
        return before.length() > 1 && !ABBREVIATIONS.contains(before);
    }

    private static void add(List<String> sentences, String sentence) {
        String s = sentence.strip();
        if (!s.isEmpty()) {
            sentences.add(s);
        }
    }

    private static String joinLines(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (String line : text.strip().split("\n")) {
            if (out.length() > 0) {
                out.append(' ');
            }
            out.append(line.strip());
        }
        return out.toString();
    }

    /** A line without its list marker ("- ", "* ", "+ ", "1. ", "1) "); the line itself if it has none. */
    private static String stripMarker(String line) {
        String s = line.strip();
        if (s.length() > 1 && "-*+".indexOf(s.charAt(0)) >= 0 && s.charAt(1) == ' ') {
            return s.substring(2).strip();
        }
        int digits = 0;
        while (digits < s.length() && digits < 9 && Character.isDigit(s.charAt(digits))) {
            digits++;
        }
        if (digits > 0 && digits + 1 < s.length() && (s.charAt(digits) == '.' || s.charAt(digits) == ')')
                && s.charAt(digits + 1) == ' ') {
            return s.substring(digits + 2).strip();
        }
        return line;
    }
}
