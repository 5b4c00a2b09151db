package io.engram.model.deontic;

/**
 * The terse-norm reading: a whole sentence of at most ten words opening with "No" — "No filler.", "No silent
 * corruption, no missing rows, no mystery nulls." (F) — and "X over Y" / "X before Y" of at most four words —
 * "Bullets over prose.", "Function before aesthetics." (O).
 */
final class TerseNorm {

    /** The most words of a terse prohibition. */
    private static final int NO_WORDS = 10;
    /** The most words of a terse preference. */
    private static final int OVER_WORDS = 4;

    private TerseNorm() {
    }

    /** An opening: "No filler.", "Bullets over prose." */
    static boolean opening(Clause c, int w, ClauseRules found) {
        if (c.is(w, "no") && Grammar.terse(c, w, NO_WORDS)) {
            found.add(Modality.FORBIDDEN, w + 1, Trigger.NO);
        } else if (Grammar.terse(c, w, OVER_WORDS)
                && (c.is(w + 1, "over") || c.is(w + 2, "over") || c.is(w + 1, "before"))) {
            found.add(Modality.OBLIGATORY, w, Trigger.OVER);
        } else {
            return false;
        }
        return true;
    }
}
