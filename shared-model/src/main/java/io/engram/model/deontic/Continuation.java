package io.engram.model.deontic;

/**
 * The continuation reading: an instruction that continues a clause after a comma and "then" or "but", or after a
 * dash — "Max 2 revision rounds, then escalate to Neo", "Small improvements are encouraged, but avoid large
 * refactors", "… in the delegation message — follow the workflow" — read by the openings at that place.
 */
final class Continuation {

    private Continuation() {
    }

    static void read(Clause c, int i, ClauseRules found) {
        for (int k = 0; k < c.commas() && found.isEmpty(); k++) {
            int t = c.comma(k);
            if (t <= i || t >= c.count()) {
                continue;
            }
            if (c.is(t, "then") || c.is(t, "but")) {
                DeonticLexer.readOpening(c, t + 1, found);
            } else if (c.markBefore(t, '\u2014')) {
                DeonticLexer.readOpening(c, t, found);
            }
        }
    }
}
