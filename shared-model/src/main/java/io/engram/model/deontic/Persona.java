package io.engram.model.deontic;

import static io.engram.model.deontic.Modality.FORBIDDEN;
import static io.engram.model.deontic.Modality.OBLIGATORY;

/**
 * The persona reading: identity and role instructions — "You are a / the …", "You are Oracle — …" (O; "You are not a
 * …" F; the action is "be …"), "Act as …", "Your job / role / task is …", "The goal is to …" — a persona's way of
 * working in the second person ("You work directly", "You delegate … to coding agents"), and its commitments in
 * the first person, as persona files are written: "I am C-3PO, …", "I will / I'll …" (O), "I won't …" (F).
 */
final class Persona {

    private static final WordSet IDENTITY_OPENERS = new WordSet("a", "an", "the", "my", "our", "his", "her", "their");
    private static final WordSet ROLE_NOUNS = Words.set("persona/role-nouns");
    private static final WordSet WORKING_VERBS = Words.set("persona/working-verbs");

    private Persona() {
    }

    /** An opening: "Act as a translator", "Your job is to …", "The goal is to have tests that …". */
    static boolean roles(Clause c, int w, ClauseRules found) {
        if (c.is(w, "act") && c.is(w + 1, "as")) {
            found.add(OBLIGATORY, w, Trigger.ACT_AS);
        } else if (c.is(w, "your") && (c.in(ROLE_NOUNS, w + 1) || c.in(ROLE_NOUNS, w + 2))) {
            found.add(OBLIGATORY, w, Trigger.YOUR_ROLE);
        } else if (c.is(w, "the") && c.in(ROLE_NOUNS, w + 1) && c.is(w + 2, "is") && c.is(w + 3, "to")) {
            found.add(OBLIGATORY, w + 4, Trigger.THE_GOAL_IS_TO);
        } else {
            return false;
        }
        return true;
    }

    /** An opening in the first person: "I am C-3PO, …", "I will tell you", "I won't …", "I'll …". */
    static boolean firstPerson(Clause c, int w, ClauseRules found) {
        if (c.is(w, "i")) {
            commitment(c, w + 1, found);
        } else if (c.is(w, "i'll")) {
            commitment(c, w, found);
        } else {
            return false;
        }
        return true;
    }

    private static void commitment(Clause c, int m, ClauseRules found) {
        if (c.is(m, "am") && (c.in(IDENTITY_OPENERS, m + 1) || c.capitalized(m + 1))) {
            found.addIdentity(OBLIGATORY, m + 1, Trigger.I_AM);
        } else if (c.is(m, "will") || c.is(m, "i'll")) {
            found.add(c.is(m + 1, "never") || c.is(m + 1, "not") ? FORBIDDEN : OBLIGATORY, m + 1, Trigger.I_WILL);
        } else if (c.is(m, "won't") || c.is(m, "wont")) {
            found.add(FORBIDDEN, m + 1, Trigger.I_WILL);
        }
    }

    /**
     * "You work directly", "You delegate … to coding agents": a verb of doing the work after a clause-opening
     * "you" (verbs of perceiving or knowing, "You see what others miss", characterise); false if it is none.
     */
    static boolean youWork(Clause c, int m, boolean clauseInitial, ClauseRules found) {
        if (!clauseInitial || !c.in(WORKING_VERBS, m)) {
            return false;
        }
        found.add(OBLIGATORY, m, Trigger.YOU_WORK);
        return true;
    }

    /** After a clause-opening "you are" ({@code negated}: "you are not"): "a careful reviewer", "Release Captain". */
    static void youAre(Clause c, int m, boolean negated, ClauseRules found) {
        if (c.in(IDENTITY_OPENERS, m) || c.capitalized(m)) {
            found.addIdentity(negated ? FORBIDDEN : OBLIGATORY, m, Trigger.YOU_ARE);
        }
    }
}
