package io.engram.model.deontic;

import static io.engram.model.deontic.Modality.FORBIDDEN;
import static io.engram.model.deontic.Modality.OBLIGATORY;
import static io.engram.model.deontic.Modality.PERMITTED;

/**
 * The second-person reading: a modal after "you" — "you must / should / shall / have to / need to / ought to / are
 * required to" (O); with "not", "mustn't", "you never", "you cannot", "you may not", "you are not allowed to", "you do
 * not" (F); "you may / can", "you are allowed / free / welcome to", "you don't need to" (P). "You may / can" permits
 * only when "you" opens the clause: "a script you can run" permits nothing. A persona's "You are …" and "You work …"
 * are read here too, where they stand among the modals, and made rules by {@link Persona}.
 */
final class SecondPerson {

    private static final WordSet HAVE_NEED = new WordSet("have", "need");
    private static final WordSet CANNOT = new WordSet("cannot", "can't", "cant");
    private static final WordSet ARE_NOT = new WordSet("aren't", "arent");
    private static final WordSet OBLIGED = Words.set("second-person/obliged");
    private static final WordSet ALLOWED = Words.set("second-person/allowed");
    private static final WordSet BANNED = Words.set("second-person/banned");

    private SecondPerson() {
    }

    /** An opening: "You must …", "You're the on-call engineer." */
    static boolean opening(Clause c, int w, ClauseRules found) {
        if (!c.isYou(w)) {
            return false;
        }
        read(c, w, true, found);
        return true;
    }

    /** Every "you" after the clause's first word: "Before merging, run the checks and you must rebase". */
    static void anywhere(Clause c, int i, ClauseRules found) {
        for (int k = i + 1; k < c.count(); k++) {
            if (c.isYou(k)) {
                read(c, k, false, found);
            }
        }
    }

    /**
     * A leading clause with no comma to end it: the main clause starts at the "you" after it. After "To …"
     * (which has no subject) that is the first "you" ("To get started you need to install …"); after "If",
     * "When" … the first "you" is the condition's ("If you need to understand X, …"), so the second.
     */
    static void afterCondition(Clause c, int subordinator, ClauseRules found) {
        int seen = 0;
        int wanted = c.is(subordinator, "to") ? 1 : 2;
        for (int k = subordinator + 1; k < c.count(); k++) {
            if (c.isYou(k) && ++seen == wanted) {
                read(c, k, false, found);
                return;
            }
        }
    }

    /** What follows the "you" at {@code k}, which opens the clause if {@code clauseInitial}. */
    private static void read(Clause c, int k, boolean clauseInitial, ClauseRules found) {
        if (c.in(Lexicon.YOU_ARE, k)) {
            are(c, k + 1, clauseInitial, false, found);
            return;
        }
        int m = k + 1;
        while (m < c.count() && c.in(Lexicon.ADVERBS, m)) {
            m++;
        }
        if (!c.isWord(m)) {
            return;
        }
        if (!modal(c, m, found)) {
            verb(c, m, clauseInitial, found);
        }
    }

    /** "you never", "you must (not)", "you mustn't", "you ought to", "you have / need to"; false if none. */
    private static boolean modal(Clause c, int m, ClauseRules found) {
        if (c.is(m, "never")) {
            found.add(FORBIDDEN, m + 1, Trigger.YOU_NEVER);
        } else if (c.in(Lexicon.MODALS, m)) {
            if (c.in(Lexicon.NEGATIONS, m + 1)) {
                found.add(FORBIDDEN, m + 2, Trigger.YOU_MUST);
            } else if (m + 1 == c.count() && c.boundary() == ':') {
                found.addLeadIn(OBLIGATORY, Trigger.YOU_MUST); // "If asked to open a PR, you MUST:" leads into a list
            } else {
                found.add(OBLIGATORY, m + 1, Trigger.YOU_MUST);
            }
        } else if (c.in(Lexicon.NEGATED_MODALS, m)) {
            found.add(FORBIDDEN, m + 1, Trigger.YOU_MUST);
        } else if (c.is(m, "ought") && c.is(m + 1, "to")) {
            found.add(OBLIGATORY, m + 2, Trigger.YOU_OUGHT_TO);
        } else if (c.in(HAVE_NEED, m) && c.is(m + 1, "to")) {
            found.add(OBLIGATORY, m + 2, Trigger.YOU_HAVE_TO);
        } else {
            return false;
        }
        return true;
    }

    /** "you are …", "you may / can", "you cannot", "you work …", "you will …", "you do not …". */
    private static void verb(Clause c, int m, boolean clauseInitial, ClauseRules found) {
        if (c.is(m, "are")) {
            are(c, m + 1, clauseInitial, false, found);
        } else if (c.in(ARE_NOT, m)) {
            are(c, m + 1, clauseInitial, true, found);
        } else if (c.is(m, "may") || c.is(m, "can")) {
            if (c.is(m + 1, "not")) {
                found.add(FORBIDDEN, m + 2, Trigger.YOU_MAY);
            } else if (clauseInitial) {
                found.add(PERMITTED, m + 1, Trigger.YOU_MAY);
            }
        } else if (c.in(CANNOT, m)) {
            found.add(FORBIDDEN, m + 1, Trigger.YOU_MAY);
        } else if (Persona.youWork(c, m, clauseInitial, found)) {
            return;
        } else if (c.is(m, "will") && c.is(m + 1, "never")) {
            found.add(FORBIDDEN, m + 2, Trigger.YOU_WILL);
        } else if (c.is(m, "will") && c.is(m + 1, "always")) {
            found.add(OBLIGATORY, m + 2, Trigger.YOU_WILL);
        } else if (c.is(m, "will") && clauseInitial && m + 1 < c.count()) {
            found.add(OBLIGATORY, m + 1, Trigger.YOU_WILL);
        } else if (c.is(m, "do") && c.is(m + 1, "not")) {
            dont(c, m + 2, found);
        } else if (c.in(Lexicon.DONT, m)) {
            dont(c, m + 1, found);
        }
    }

    private static void dont(Clause c, int m, ClauseRules found) {
        if (c.is(m, "just") || c.is(m, "only") || c.is(m, "merely")) {
            return; // "You don't just report what happened; you explain why" contrasts, it does not forbid
        }
        if (c.in(HAVE_NEED, m) && c.is(m + 1, "to")) {
            found.add(PERMITTED, m + 2, Trigger.YOU_DONT_NEED_TO);
        } else if (!c.in(HAVE_NEED, m)) { // "You don't need encouragement — you need instructions" states a need
            found.add(FORBIDDEN, m, Trigger.YOU_DO_NOT);
        }
    }

    /** After "you are" ({@code negated}: "you aren't"): "never", "required to", "allowed to", "forbidden", a persona. */
    private static void are(Clause c, int m, boolean clauseInitial, boolean negated, ClauseRules found) {
        if (c.is(m, "not")) {
            negated = true;
            m++;
        }
        while (m < c.count() && c.in(Lexicon.ADVERBS, m)) {
            m++;
        }
        if (c.is(m, "never")) {
            found.add(FORBIDDEN, m + 1, Trigger.YOU_ARE_NEVER);
        } else if (c.in(OBLIGED, m) && c.is(m + 1, "to")) {
            found.add(negated ? PERMITTED : OBLIGATORY, m + 2, Trigger.YOU_ARE_REQUIRED_TO);
        } else if (c.in(ALLOWED, m) && c.is(m + 1, "to")) {
            found.add(negated ? FORBIDDEN : PERMITTED, m + 2, Trigger.YOU_ARE_ALLOWED_TO);
        } else if (c.in(BANNED, m)) {
            int a = m + 1;
            if (c.is(a, "to") || c.is(a, "from")) {
                a++;
            }
            found.add(FORBIDDEN, a, Trigger.YOU_ARE_FORBIDDEN);
        } else if (clauseInitial) {
            Persona.youAre(c, m, negated, found);
        }
    }
}
