package io.engram.model.deontic;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The candidate rules of one text, clause by clause as the readings found them, then the two steps that run once the
 * whole text is read: the resolution ({@link #resolve}) and the decision ({@link #decide}). One per thread, reused.
 */
final class Candidates {

    /** What a clause withdraws from the clause before it: that one was a label, and its value says what kind. */
    enum Withdrawal {
        NONE,
        /** A command's caption ({@link Labels#commandCaption}): the caption is not a step to take. */
        ALL,
        /** A component's name ({@link Labels#describingValue}): its imperatives are not instructions. */
        IMPERATIVES
    }

    private final List<Rule> rules = new ArrayList<>();
    private final ClauseRules current = new ClauseRules(rules);
    /** For each clause, where its candidates start in {@link #rules}, and what it withdraws. */
    private int[] starts = new int[16];
    private Withdrawal[] withdrawals = new Withdrawal[16];
    private int clauses;

    void reset() {
        rules.clear();
        clauses = 0;
    }

    /** Starts on the next clause of the text: the readings add its candidates to what this returns. */
    ClauseRules open(Clause clause) {
        if (clauses == starts.length) {
            starts = Arrays.copyOf(starts, clauses * 2);
            withdrawals = Arrays.copyOf(withdrawals, clauses * 2);
        }
        starts[clauses] = rules.size();
        withdrawals[clauses] = Withdrawal.NONE;
        clauses++;
        current.open(clause);
        return current;
    }

    /** Whether the last clause opened holds candidates. */
    boolean lastClauseFound() {
        return clauses > 0 && rules.size() > starts[clauses - 1];
    }

    /** Records what the clause being read withdraws from the one before it; {@link #resolve} applies it. */
    void withdraw(Withdrawal withdrawal) {
        withdrawals[clauses - 1] = withdrawal;
    }

    /**
     * The sentence-level resolution: a label's candidates are withdrawn when the clause after it shows that the
     * label names a command or a component. Only a label that opens its sentence has a value that can withdraw,
     * and such a label withdraws nothing itself, so no withdrawal depends on another.
     */
    void resolve() {
        for (int c = clauses - 1; c > 0; c--) {
            if (withdrawals[c] == Withdrawal.NONE) {
                continue;
            }
            for (int r = starts[c] - 1; r >= starts[c - 1]; r--) {
                if (withdrawals[c] == Withdrawal.ALL || rules.get(r).trigger() == Trigger.IMPERATIVE) {
                    rules.remove(r);
                }
            }
        }
    }

    /**
     * The decision: which candidates are the text's rules. The lexer's own decision ({@link Decision#LEXER}) keeps
     * every candidate the resolution left, in order; the rule reader's ({@link ReaderRules}) decides whether the
     * text, one sentence, is a rule, keeping the lexer's modality and action where it found one.
     */
    List<Rule> decide(CharSequence text, Decision decision) {
        return decision.decide(text, rules.isEmpty() ? List.of() : List.copyOf(rules));
    }
}
