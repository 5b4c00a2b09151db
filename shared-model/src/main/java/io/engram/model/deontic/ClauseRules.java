package io.engram.model.deontic;

import java.util.List;

/**
 * The candidate rules of the clause being read: what the readings add to, and all of the text's candidates a
 * reading can see or change — a reading cannot reach another clause's. One per thread, moved from clause to clause.
 */
final class ClauseRules {

    private static final int MAX_ACTION_CHARS = 200;
    private static final String TRAILING_PUNCTUATION = ",;:-\u2014()\"'";

    private final List<Rule> rules;
    private final char[] actionBuffer = new char[MAX_ACTION_CHARS];
    private Clause clause;
    private int from;

    /** Candidates kept in {@code rules}, the text's list, from its end on. */
    ClauseRules(List<Rule> rules) {
        this.rules = rules;
    }

    void open(Clause next) {
        clause = next;
        from = rules.size();
    }

    boolean isEmpty() {
        return rules.size() == from;
    }

    int size() {
        return rules.size() - from;
    }

    Rule get(int i) {
        return rules.get(from + i);
    }

    void set(int i, Rule rule) {
        rules.set(from + i, rule);
    }

    /** A rule whose action runs from token {@code actionToken} to the clause's end; none if that is past the clause. */
    void add(Modality modality, int actionToken, Trigger trigger) {
        if (actionToken >= clause.count()) {
            return; // "Never." alone names no action
        }
        String action = action(clause.start(actionToken));
        if (!action.isEmpty()) {
            rules.add(new Rule(modality, action, trigger));
        }
    }

    /** An identity from token {@code fromToken} on: "You are a careful reviewer" → "be a careful reviewer". */
    void addIdentity(Modality modality, int fromToken, Trigger trigger) {
        if (fromToken + 1 >= clause.count()) {
            return;
        }
        rules.add(new Rule(modality, "be " + action(clause.start(fromToken)), trigger));
    }

    /** The whole clause as the action: "If asked to open a PR, you MUST:" leads into a list of what. */
    void addLeadIn(Modality modality, Trigger trigger) {
        rules.add(new Rule(modality, action(clause.start(0)), trigger));
    }

    /**
     * A rule whose action runs from the character {@code actionStart} (a Chinese clause has no word boundaries) to
     * the clause's end, if it has at least {@code minLength} characters.
     */
    void addFrom(Modality modality, int actionStart, int minLength, Trigger trigger) {
        String action = action(actionStart);
        if (action.length() >= minLength) {
            rules.add(new Rule(modality, action, trigger));
        }
    }

    /** The action phrase as written, from {@code start} to the clause's end: markup, surrounding punctuation removed. */
    private String action(int start) {
        char[] out = actionBuffer;
        int n = 0;
        boolean space = false;
        for (int i = start; i < clause.end() && n < MAX_ACTION_CHARS; i++) {
            char c = clause.charAt(i);
            if (c > ' ' && c < 128) {
                if (c == '*' || c == '`' || (c == '_' && !innerUnderscore(i, start))) {
                    continue; // emphasis and code markup
                }
            } else if (Clause.isSpace(c)) {
                space = n > 0;
                continue;
            } else if (WordSet.ignorable(c)) {
                continue;
            }
            if (space) {
                out[n++] = ' ';
                space = false;
                if (n == MAX_ACTION_CHARS) {
                    break;
                }
            }
            out[n++] = c;
        }
        while (n > 0 && TRAILING_PUNCTUATION.indexOf(out[n - 1]) >= 0) {
            n--;
        }
        return new String(out, 0, n);
    }

    /** An underscore inside a word (snake_case) is text; one at a word edge is emphasis. */
    private boolean innerUnderscore(int i, int start) {
        return i > start && i + 1 < clause.end() && Character.isLetterOrDigit(clause.charAt(i - 1))
                && Character.isLetterOrDigit(clause.charAt(i + 1));
    }
}
