package io.engram.model.deontic;

/** The parenthetical reading: "**Lock file**: `uv.lock` (commit this file)" instructs; "(see …)" only refers. */
final class Parenthetical {

    private Parenthetical() {
    }

    static void read(Clause c, int i, ClauseRules found) {
        for (int t = i + 1; t + 1 < c.count(); t++) {
            if (c.markBefore(t, '(') && c.in(Lexicon.IMPERATIVE_VERBS, t) && !c.is(t, "see")) {
                found.add(Modality.OBLIGATORY, t, Trigger.PARENTHETICAL);
                return;
            }
        }
    }
}
