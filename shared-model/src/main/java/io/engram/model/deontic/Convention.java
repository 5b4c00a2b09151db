package io.engram.model.deontic;

/**
 * The convention reading, under a rule heading (a rule list or a prohibition list, {@link SectionKind}): a convention
 * in the present tense is a rule (O) — a kind of thing and what it does ("Errors use `anyhow::Result`", "New
 * features require tests"), a short one that leaves out its "are" ("Integration tests gated behind
 * `RUN_INTEGRATION=1`"), or a short label's terse value ("Line length: 120 chars maximum", "Labels: `fix`, `feat`").
 * Not a command's reference ("Installation: `uv add <package>`"), a statement about one thing ("IMPORTANT: The
 * file is …"), a label's long value, which defines it, nor a verb of the subject's relative clause.
 */
final class Convention {

    private static final WordSet VERBS = Words.set("convention/verbs");
    private static final WordSet RELATIVE_PRONOUNS = new WordSet("that", "which", "who", "whose");
    private static final WordSet PARTICIPLE_LINKS = Words.set("convention/participle-links");
    /** The most tokens of a convention stated with a participle and no "are": "Slow tests gated with `@slow`". */
    private static final int PARTICIPLE_TOKENS = 12;
    /** The most tokens of a convention's value after its label: "120 chars maximum", "oxfmt (via `pnpm fix`)". */
    private static final int VALUE_TOKENS = 8;
    /** How far after the subject's first word the convention's verb may stand. */
    private static final int SUBJECT_WORDS = 3;

    private Convention() {
    }

    /** Reads the clause whose subject starts at {@code i}. */
    static void read(Clause c, int i, ClauseRules found) {
        if (c.section() != SectionKind.RULES && c.section() != SectionKind.PROHIBITIONS) {
            return;
        }
        if (c.context().labelValue()) {
            if (labelValue(c, i)) {
                found.add(Modality.OBLIGATORY, i, Trigger.CONVENTION);
            }
            return;
        }
        if (c.in(Lexicon.DETERMINERS_AND_PRONOUNS, i)) {
            return;
        }
        for (int k = i + 1; k < c.count() && k <= i + SUBJECT_WORDS; k++) {
            if (!c.isWord(k - 1) || c.in(RELATIVE_PRONOUNS, k)) {
                return; // "Tests that use the workflow environment may start …": the verb is the relative clause's
            }
            if (c.in(VERBS, k) && k + 1 < c.count()) {
                found.add(Modality.OBLIGATORY, i, Trigger.CONVENTION);
                return;
            }
            if (c.markBefore(k, '(')) {
                return; // "Hub files (most depended on)": an aside, not the convention's verb
            }
            if (participleConvention(c, i, k)) {
                found.add(Modality.OBLIGATORY, i, Trigger.CONVENTION);
                return;
            }
        }
    }

    /**
     * Whether the clause from {@code i} is a convention's value after its short label: terse (a long one defines
     * its label: "Editorial: Terminology, spelling, …"), code unless a command ("Labels: `fix`, `feat`" but not
     * "Installation: `uv add`"), no statement ("IMPORTANT: The file is …"), not introducing what follows (a value
     * that ends in a colon: "Circular import chains detected: …"), and not after a label already read as an
     * instruction ("Run the checks: …").
     */
    private static boolean labelValue(Clause c, int i) {
        return !c.context().labelRead() && !(c.onlyCode() && command(c, 0)) && !Grammar.describes(c, i)
                && c.boundary() != ':' && c.count() - i <= VALUE_TOKENS
                && !c.in(Lexicon.DETERMINERS_AND_PRONOUNS, i) && !c.in(Lexicon.COPULAS, i + 1)
                && !c.in(Lexicon.COPULAS, i + 2);
    }

    /**
     * "Slow tests gated with `@slow`": a convention stated without its "are", a participle then a preposition (a
     * longer clause goes on to its own verb: "Reviewers dispatched by X inherit …").
     */
    private static boolean participleConvention(Clause c, int i, int k) {
        return Grammar.participle(c, k) && c.in(PARTICIPLE_LINKS, k + 1) && c.count() - i <= PARTICIPLE_TOKENS
                && !c.in(Lexicon.PEOPLE, k - 1) && !hasCopulaOrModal(c, i);
    }

    /**
     * Whether a copula, a modal or another noun signal (but "of" and "'s") follows {@code from}: then a participle
     * is not the clause's only verb.
     */
    private static boolean hasCopulaOrModal(Clause c, int from) {
        for (int t = from; t < c.count(); t++) {
            if (c.in(Lexicon.NOUN_SIGNALS, t) && !c.is(t, "of") && !c.is(t, "'s")) {
                return true;
            }
        }
        return false;
    }

    /** Whether the code span {@code t} holds a command: a lower-case word, then a space ("uv add …", "make test"). */
    private static boolean command(Clause c, int t) {
        int p = c.start(t);
        int end = c.end(t);
        while (p < end && c.charAt(p) == '`') {
            p++;
        }
        int word = p;
        while (p < end && (Character.isLowerCase(c.charAt(p)) || Character.isDigit(c.charAt(p)) || c.charAt(p) == '-'
                || c.charAt(p) == '.' || c.charAt(p) == '_' || c.charAt(p) == '/')) {
            p++;
        }
        return p > word && p < end && c.charAt(p) == ' ';
    }
}
