package io.engram.model.deontic;

/** The "please" reading: "… please mention they can add …" asks for what follows wherever it stands. */
final class Please {

    private Please() {
    }

    static void read(Clause c, int i, ClauseRules found) {
        for (int t = i + 1; t + 1 < c.count(); t++) {
            if (c.is(t, "please") && Grammar.verb(c, t + 1) && !(c.is(t + 1, "note") && c.is(t + 2, "that"))) {
                found.add(Modality.OBLIGATORY, t + 1, Trigger.PLEASE); // "Please note that …" informs
                return;
            }
        }
    }
}
