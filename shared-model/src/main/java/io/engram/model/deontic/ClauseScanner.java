package io.engram.model.deontic;

import java.util.Arrays;

/**
 * The tokenizer: splits a text into clauses — at a sentence's end, at {@code ; : |}, at a line that opens a block,
 * at the CJK marks — and each clause into words and code spans. Token boundaries go into int arrays reused from
 * text to text (one scanner per thread): it allocates nothing per character, one {@link Clause} per clause.
 */
final class ClauseScanner {

    /** ASCII letters and digits: the common case of {@link #isWordChar}, without a Unicode table lookup. */
    private static final boolean[] ASCII_WORD = new boolean[128];

    static {
        for (char c = '0'; c <= '9'; c++) {
            ASCII_WORD[c] = true;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            ASCII_WORD[c] = true;
            ASCII_WORD[c - 32] = true;
        }
    }

    /** The text being read and its tokens so far, which each {@link Clause} reads in place. */
    private char[] text = new char[256];
    private int length;
    private int[] starts = new int[64];
    private int[] ends = new int[64];
    private byte[] types = new byte[64];
    /** {@link WordSet#hash} of each word token, computed on first use (0 = not yet). */
    private int[] hashes = new int[64];
    /** For each comma (or dash) outside parentheses, the index in its clause of the token after it. */
    private int[] commaTokens = new int[8];
    /** Where the next clause starts. */
    private int position;
    /** Tokens and commas of the text so far. */
    private int count;
    private int commas;
    /** The clause being scanned: its first token and comma, how many parentheses are open, whether it holds Han. */
    private int first;
    private int firstComma;
    private int parentheses;
    private boolean han;

    /** Starts on a new text, copied into the reused buffer: the scan reads an array instead of calling charAt. */
    void reset(CharSequence input) {
        String s = input.toString();
        length = s.length();
        if (text.length < length) {
            text = new char[Math.max(length, text.length * 2)];
        }
        s.getChars(0, length, text, 0);
        position = 0;
        count = 0;
        commas = 0;
    }

    boolean hasNext() {
        return position < length;
    }

    /** The next clause, read under {@code section} after a clause that makes {@code context} of it. */
    Clause next(SectionKind section, Context context) {
        first = count;
        firstComma = commas;
        parentheses = 0;
        han = false;
        int start = position;
        int end = scan(position);
        char boundary = end < length ? text[end] : 0;
        position = end < length ? end + 1 : length;
        return new Clause(text, starts, ends, types, hashes, first, count - first, commaTokens, firstComma,
                commas - firstComma, start, end, boundary, han, section, context);
    }

    /** Adds the tokens from {@code i} up to the clause's boundary; returns where that is (the text's length at its end). */
    private int scan(int i) {
        while (i < length) {
            char c = text[i];
            if (c == '`') {
                int close = codeSpanEnd(i);
                if (close > 0) {
                    addToken(i, close, Clause.CODE);
                    i = close;
                } else {
                    i++;
                }
                continue;
            }
            if (isWordChar(c)) {
                int start = i;
                i = wordEnd(i);
                int name = fileNameEnd(start, i);
                addToken(start, name, name > i ? Clause.CODE : Clause.WORD);
                i = name;
                continue;
            }
            if (c == '(') {
                parentheses++;
            } else if (c == ')' && parentheses > 0) {
                parentheses--;
            }
            if (isBoundary(c, i)) {
                return i;
            }
            if (c == ',' && parentheses == 0 || c == '\u2014') {
                addComma(); // a comma in "(page implementation, embed optimization)" lists; it ends no clause
            }
            i++;
        }
        return length;
    }

    private static boolean isWordChar(char c) {
        return c < 128 ? ASCII_WORD[c] : Character.isLetterOrDigit(c) || WordSet.ignorable(c);
    }

    /**
     * Where a file or dotted name that starts with the word {@code start}…{@code wordEnd} ends ("filter.rs",
     * "init.py", "Node.js"), or {@code wordEnd} if the word stands alone: a name is code, not a verb. A dot
     * after a one-letter word is an abbreviation's ("e.g.").
     */
    private int fileNameEnd(int start, int wordEnd) {
        int i = wordEnd;
        if (wordEnd - start < 2) {
            return wordEnd;
        }
        while (i + 1 < length && text[i] == '.' && Character.isLetter(text[i + 1])) {
            i = wordEnd(i + 1);
        }
        return i;
    }

    private int wordEnd(int i) {
        while (i < length) {
            char c = text[i];
            if (isWordChar(c)) {
                if (!han && c >= 0x2E80 && Character.isIdeographic(c)) {
                    han = true;
                }
                i++;
            } else if ((c == '\'' || c == '\u2019' || c == '-') && i + 1 < length && Character.isLetter(text[i + 1])) {
                i++;
            } else {
                break;
            }
        }
        return i;
    }

    /** End (exclusive) of the code span opened by the backtick run at {@code i}, or -1 if unclosed. */
    private int codeSpanEnd(int i) {
        int run = 0;
        while (i + run < length && text[i + run] == '`') {
            run++;
        }
        int j = i + run;
        while (j < length) {
            if (text[j] == '`') {
                int k = 0;
                while (j + k < length && text[j + k] == '`') {
                    k++;
                }
                if (k == run) {
                    return j + k;
                }
                j += k;
            } else {
                j++;
            }
        }
        return -1;
    }

    private boolean isBoundary(char c, int i) {
        switch (c) {
            case '.', '!', '?' -> {
                return sentenceEnd(c, i);
            }
            case ';', '|', '\u3002', '\uff01', '\uff1f', '\uff1b', '\uff1a', '\uff0c' -> {
                return true;
            }
            case ':' -> {
                // "Label: …", and "**Label:** …" whose emphasis closes after the colon
                int next = i + 1;
                while (next < length && (text[next] == '*' || text[next] == '_')) {
                    next++;
                }
                return next >= length || Clause.isSpace(text[next]);
            }
            case '\n' -> {
                return lineStartsBlock(i + 1);
            }
            default -> {
                return false;
            }
        }
    }

    /** Whether the '.', '!' or '?' at {@code i} ends a sentence: not in "file.md", "1.5", a URL, "e.g.". */
    private boolean sentenceEnd(char c, int i) {
        if (i + 1 < length) {
            char next = text[i + 1];
            if (!(Clause.isSpace(next) || next == '*' || next == '_' || next == ')'
                    || next == '"' || next == '\u201d' || next == '\'')) {
                return false;
            }
        }
        // "e.g.", "i.e.", initials: a single letter before the dot is not a sentence end
        int last = count - 1;
        return !(c == '.' && count > first && ends[last] == i && types[last] == Clause.WORD
                && ends[last] - starts[last] == 1);
    }

    /** A new line that opens a list item, quote, heading, table row, or a blank line ends the clause. */
    private boolean lineStartsBlock(int i) {
        while (i < length && (text[i] == ' ' || text[i] == '\t')) {
            i++;
        }
        if (i >= length) {
            return true;
        }
        char c = text[i];
        if (c == '\n' || c == '\r' || c == '>' || c == '#' || c == '|') {
            return true;
        }
        if ((c == '-' || c == '*' || c == '+') && i + 1 < length && text[i + 1] == ' ') {
            return true;
        }
        int j = i;
        while (j < length && Character.isDigit(text[j])) {
            j++;
        }
        return j > i && j + 1 < length && (text[j] == '.' || text[j] == ')') && text[j + 1] == ' ';
    }

    private void addComma() {
        if (commas == commaTokens.length) {
            commaTokens = Arrays.copyOf(commaTokens, commas * 2);
        }
        commaTokens[commas++] = count - first;
    }

    private void addToken(int start, int end, byte type) {
        if (count == starts.length) {
            starts = Arrays.copyOf(starts, count * 2);
            ends = Arrays.copyOf(ends, count * 2);
            types = Arrays.copyOf(types, count * 2);
            hashes = Arrays.copyOf(hashes, count * 2);
        }
        hashes[count] = 0;
        starts[count] = start;
        ends[count] = end;
        types[count] = type;
        count++;
    }
}
