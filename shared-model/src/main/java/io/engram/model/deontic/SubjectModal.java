package io.engram.model.deontic;

import static io.engram.model.deontic.Modality.FORBIDDEN;
import static io.engram.model.deontic.Modality.OBLIGATORY;
import static io.engram.model.deontic.Modality.PERMITTED;

/**
 * The reading of a modal of the agent's work: in agent documents the agent writes the code, the PR and the answer,
 * so an obligation on them is the agent's — "Every PR must include a benchmark", "Code must not print secrets" (F),
 * "Type hints required for all code", "consistency is mandatory"; "It is crucial / important … to / that …"; a
 * capitalized NEVER or ALWAYS after any subject ("Client code NEVER imports server code" F: capitals are how a
 * writer insists); and a leave stated of a kind of thing, "Relative imports are acceptable for private packages"
 * (P), "Deferred imports are not allowed" (F). Not a modal whose subject is people: "Reviewers must approve".
 */
final class SubjectModal {

    private static final WordSet IT_IS = new WordSet("it's", "its");
    private static final WordSet INTENSIFIERS = Words.set("subject-modal/intensifiers");
    private static final WordSet NECESSARY = Words.set("subject-modal/necessary");
    private static final WordSet ACCEPTABLE = Words.set("subject-modal/acceptable");
    private static final WordSet EMBEDDING_WORDS = Words.set("subject-modal/embedding-words");
    /** How far after the subject's first word its modal may stand. */
    private static final int SUBJECT_WORDS = 8;

    private SubjectModal() {
    }

    /** Reads the clause whose subject starts at {@code i}. */
    static void read(Clause c, int i, ClauseRules found) {
        if ((c.is(i, "it") && c.is(i + 1, "is")) || c.in(IT_IS, i)) {
            itIsNecessary(c, c.is(i, "it") ? i + 2 : i + 1, found);
            return;
        }
        for (int k = i + 1; k < c.count() && k <= i + SUBJECT_WORDS; k++) {
            if (!c.isWord(k)) {
                continue;
            }
            if (k - 2 > i && c.in(EMBEDDING_WORDS, k - 2)) {
                continue; // "The data just appears where it should": the modal belongs to an embedded clause
            }
            if (c.in(Lexicon.MODALS, k) || c.in(Lexicon.NEGATED_MODALS, k)
                    || (c.is(k, "required") || c.is(k, "mandatory")) && Character.isLowerCase(c.charAt(c.start(k)))) {
                if (!c.in(Lexicon.PEOPLE, i) && !c.in(Lexicon.PEOPLE, k - 1)) {
                    modal(c, i, k, found);
                }
                return;
            }
            if ((c.is(k, "never") || c.is(k, "always")) && c.upperCase(k) && !c.in(Lexicon.PEOPLE, i)) {
                // "Server code NEVER imports client code": capitals are how a writer insists, not describes
                boolean never = c.is(k, "never");
                found.add(never ? FORBIDDEN : OBLIGATORY, k + 1, never ? Trigger.SUBJECT_NEVER : Trigger.SUBJECT_ALWAYS);
                return;
            }
            if (acceptable(c, i, k, found)) {
                return;
            }
        }
    }

    /** "It is (extremely) important to / that …", from the word after "it is". */
    private static void itIsNecessary(Clause c, int m, ClauseRules found) {
        while (c.in(Lexicon.ADVERBS, m) || c.in(INTENSIFIERS, m)) {
            m++;
        }
        if (c.in(NECESSARY, m) && (c.is(m + 1, "to") || c.is(m + 1, "that"))) {
            found.add(OBLIGATORY, m + 2, Trigger.IT_IS_NECESSARY);
        }
    }

    /** The modal at {@code k} ("must", "mustn't", "required") after the subject at {@code i}. */
    private static void modal(Clause c, int i, int k, ClauseRules found) {
        boolean negatedModal = c.in(Lexicon.NEGATED_MODALS, k);
        boolean negated = negatedModal || c.in(Lexicon.NEGATIONS, k + 1);
        int action = negated && !negatedModal ? k + 2 : k + 1;
        boolean modal = c.in(Lexicon.MODALS, k);
        if (k + 1 == c.count() && !modal) {
            action = i; // "… but consistency is mandatory": with nothing after it, the subject is required
        }
        Trigger trigger = modal || negatedModal ? Trigger.SUBJECT_MUST : Trigger.REQUIRED;
        found.add(negated ? FORBIDDEN : OBLIGATORY, action, trigger);
    }

    /**
     * "Relative imports are acceptable for private packages", "… are acceptable only when bundled with …",
     * "Deferred imports are not allowed": a copula at {@code k}, then a word of leave at the clause's end or before
     * a preposition; false if the words at {@code k} are not that.
     */
    private static boolean acceptable(Clause c, int i, int k, ClauseRules found) {
        int a = c.is(k + 1, "not") ? k + 2 : k + 1;
        int after = c.is(a + 1, "only") ? a + 2 : a + 1;
        if (!c.in(Lexicon.COPULAS, k) || !c.in(ACCEPTABLE, a)
                || !(after == c.count() || c.in(Lexicon.SUBORDINATORS, after) || c.is(after, "here"))
                || c.in(Lexicon.PEOPLE, i) || c.in(Lexicon.DETERMINERS_AND_PRONOUNS, i)) {
            return false;
        }
        boolean forbids = a == k + 2 || c.is(k, "isn't") || c.is(k, "aren't");
        found.add(forbids ? FORBIDDEN : PERMITTED, i, Trigger.ACCEPTABLE);
        return true;
    }
}
