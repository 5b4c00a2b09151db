package io.engram.model.deontic;

/**
 * A clause that opens with a leading condition or adverbial ("If / When / Before / For …"): the condition is not an
 * instruction ("If you must retry, wait" obliges only to wait). The main clause starts after one of its commas ("If
 * X, Y, or Z, rebuild …"), and is read there by the openings and the modal of the agent's work; with no comma,
 * at the "you" after the condition; and "please" before a verb asks wherever it stands.
 */
final class LeadingCondition {

    private LeadingCondition() {
    }

    /** Reads the clause whose condition opens at {@code i}. */
    static void read(Clause c, int i, ClauseRules found) {
        for (int k = 0; k < c.commas() && found.isEmpty(); k++) {
            int t = c.comma(k);
            if (t > i && t < c.count()) {
                i = c.skipFillers(t);
                DeonticLexer.readOpening(c, i, found);
                if (found.isEmpty()) {
                    SubjectModal.read(c, i, found);
                }
            }
        }
        if (found.isEmpty()) {
            SecondPerson.afterCondition(c, i, found);
        }
        if (found.isEmpty()) {
            Please.read(c, i, found);
        }
    }
}
