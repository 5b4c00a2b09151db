package io.engram.model.deontic;

/**
 * One clause of a text, read-only: its tokens (words and code spans, numbered from 0), the commas between them,
 * the mark that ends it, the headings it stands under and what the clause before it makes of it. It reads the
 * scanner's buffers in place, so it is valid while its text is being read; the only thing it writes is a cache
 * of its words' hashes, which no reading sees.
 *
 * @param text        the text's characters (the scanner's buffer)
 * @param starts      where each token of the text starts; {@code ends}, {@code types}, {@code hashes} alike
 * @param first       the index there of the clause's first token
 * @param count       how many tokens the clause has
 * @param commaTokens for each comma (or dash) outside parentheses, the token after it, counted in its clause
 * @param firstComma  the index there of the clause's first comma; {@code commas} how many it has
 * @param start       where the clause starts in the text (after the boundary before it)
 * @param end         where it ends (its boundary, exclusive)
 * @param boundary    the mark that ends it ('.', ':', '\n', …), or 0 at the end of the text
 * @param han         whether it holds a Chinese, Japanese or Korean ideograph: the Chinese reading reads it
 * @param section     the kind of the headings above it
 * @param context     what the clause before it makes of it
 */
record Clause(char[] text, int[] starts, int[] ends, byte[] types, int[] hashes, int first, int count,
              int[] commaTokens, int firstComma, int commas, int start, int end, char boundary, boolean han,
              SectionKind section, Context context) {

    static final byte WORD = 0;
    static final byte CODE = 1;

    char charAt(int index) {
        return text[index];
    }

    /** Where token {@code t} starts in the text. */
    int start(int t) {
        return starts[first + t];
    }

    /** Where token {@code t} ends in the text (exclusive). */
    int end(int t) {
        return ends[first + t];
    }

    boolean isWord(int t) {
        return t < count && types[first + t] == WORD;
    }

    boolean isCode(int t) {
        return t < count && types[first + t] == CODE;
    }

    /** The token after the {@code c}-th comma. */
    int comma(int c) {
        return commaTokens[firstComma + c];
    }

    /** Whether token {@code t} is the word {@code word} (lower case), ignoring case and format characters. */
    boolean is(int t, String word) {
        if (!isWord(t) || end(t) - start(t) < word.length()) {
            return false;
        }
        char firstChar = text[start(t)];
        // fast reject on the first letter; a leading invisible character takes the full comparison
        if (firstChar < 128 && WordSet.fold(firstChar) != word.charAt(0)) {
            return false;
        }
        return WordSet.equalsWord(text, start(t), end(t), word);
    }

    /** Whether token {@code t} is a word of {@code set}. */
    boolean in(WordSet set, int t) {
        if (!isWord(t)) {
            return false;
        }
        int h = hashes[first + t];
        if (h == 0) {
            h = WordSet.hash(text, start(t), end(t));
            hashes[first + t] = h;
        }
        return set.contains(h, text, start(t), end(t));
    }

    /** Whether the characters {@code [from, to)} are a word of {@code set}. */
    boolean contains(WordSet set, int from, int to) {
        return set.contains(text, from, to);
    }

    /** "you", "you're". */
    boolean isYou(int t) {
        // called for every token of a clause: reject on the first letter before any hashing
        if (!isWord(t) || WordSet.fold(text[start(t)]) != 'y') {
            return isWord(t) && WordSet.ignorable(text[start(t)]) && (is(t, "you") || in(Lexicon.YOU_ARE, t));
        }
        return is(t, "you") || in(Lexicon.YOU_ARE, t);
    }

    /** Whether a comma follows token {@code t}. */
    boolean commaAfter(int t) {
        for (int c = 0; c < commas; c++) {
            if (comma(c) == t + 1) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code mark} stands between the token before {@code t} and it. */
    boolean markBefore(int t, char mark) {
        for (int p = end(t - 1); p < start(t); p++) {
            if (text[p] == mark) {
                return true;
            }
        }
        return false;
    }

    boolean hasWord(String word) {
        for (int t = 0; t < count; t++) {
            if (is(t, word)) {
                return true;
            }
        }
        return false;
    }

    /** The first token from {@code t} on that is not a filler ("please", "also", "then" …), skipping three at most. */
    int skipFillers(int t) {
        int skipped = 0;
        while (t < count && skipped < 3 && in(Lexicon.FILLERS, t)) {
            t++;
            skipped++;
        }
        return t;
    }

    /** Whether token {@code t} is a word that starts with a capital letter (not "I"). */
    boolean capitalized(int t) {
        return isWord(t) && Character.isUpperCase(text[start(t)]) && !is(t, "i");
    }

    /** Whether the word is written in capitals (at least two letters): "NEVER", "ALWAYS". */
    boolean upperCase(int t) {
        int letters = 0;
        for (int p = start(t); p < end(t); p++) {
            char c = text[p];
            if (Character.isLowerCase(c)) {
                return false;
            }
            letters += Character.isUpperCase(c) ? 1 : 0;
        }
        return letters >= 2;
    }

    /** Whether token {@code t} is longer than {@code ending} and ends with it (lower case). */
    boolean endsWith(int t, String ending) {
        int n = ending.length();
        int from = start(t);
        int to = end(t);
        if (to - from <= n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (WordSet.fold(text[to - n + i]) != ending.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the clause has tokens and all of them are code spans. */
    boolean onlyCode() {
        for (int t = 0; t < count; t++) {
            if (types[first + t] != CODE) {
                return false;
            }
        }
        return count > 0;
    }

    /** Whether every token of the clause is a word (no code span). */
    boolean onlyWords() {
        for (int t = 0; t < count; t++) {
            if (types[first + t] != WORD) {
                return false;
            }
        }
        return true;
    }

    /** A clause that opens with a quotation mark mentions its words ("Abandoned: "Add zizmor …""), not says them. */
    boolean quoted() {
        int p = start;
        while (p < end && (isSpace(text[p]) || text[p] == '*' || text[p] == '_')) {
            p++;
        }
        return p < end && (text[p] == '"' || text[p] == '\u201c');
    }

    /** Whether the clause's text has {@code prefix} at {@code at}. */
    boolean startsWith(int at, String prefix) {
        if (at + prefix.length() > end) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (text[at + i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    static boolean isSpace(char c) {
        return c <= ' ' ? c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f'
                : c >= 0x80 && Character.isWhitespace(c);
    }
}
