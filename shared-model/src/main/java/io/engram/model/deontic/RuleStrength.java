package io.engram.model.deontic;

import java.util.List;

/**
 * How strongly a text binds the agent, by the strongest rule in it: a prohibition before an obligation, an
 * obligation before a permission, any rule before none. What decides which rules stay when they do not all fit:
 * the hard tier of a document over its load limit ({@code HardTierFill}) and the rules of a context over its budget.
 */
public final class RuleStrength {

    /** The rank of a text in which no rule was found: after every rule. */
    public static final int NO_RULE = 3;

    private RuleStrength() {
    }

    /** 0 for a prohibition, 1 an obligation, 2 a permission, {@link #NO_RULE} for none: lower binds more. */
    public static int rank(List<Rule> rules) {
        int rank = NO_RULE;
        for (Rule rule : rules) {
            rank = Math.min(rank, switch (rule.modality()) {
                case FORBIDDEN -> 0;
                case OBLIGATORY -> 1;
                case PERMITTED -> 2;
            });
        }
        return rank;
    }

    /** Whether a text of this rank obliges or forbids (a permission or no rule does neither). */
    public static boolean binding(int rank) {
        return rank <= 1;
    }
}
