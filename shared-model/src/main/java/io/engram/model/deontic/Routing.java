package io.engram.model.deontic;

/**
 * The routing reading: an escalation line of a persona, "Anomalies suggesting fraud or security issues → Seraph",
 * routes what it names to the agent or person after the arrow (a capitalized name, or an instruction: "… → report to
 * the owning team"), not code: "A → B" between code spans is a flow.
 */
final class Routing {

    private Routing() {
    }

    static void read(Clause c, int i, ClauseRules found) {
        if (c.count() - i < 4) {
            return;
        }
        for (int t = i + 3; t < c.count(); t++) {
            if ((c.capitalized(t) || c.in(Lexicon.IMPERATIVE_VERBS, t)) && c.markBefore(t, '\u2192')) {
                found.add(Modality.OBLIGATORY, i, Trigger.ROUTE);
                return;
            }
        }
    }
}
