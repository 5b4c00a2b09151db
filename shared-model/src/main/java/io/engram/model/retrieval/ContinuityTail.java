package io.engram.model.retrieval;

import java.util.List;
import java.util.function.ToIntFunction;

/**
 * The recent raw tail of a session that stays verbatim (docs/contracts.md §C.2): at least the last
 * {@code minTurns} turns, extended backwards while the tail stays within {@code tokenTarget}; then, if the
 * tail starts with an assistant turn right after a user turn, that user turn joins it — only that one pair.
 * Pairs never chain, so an alternating conversation's tail stays near the token target.
 *
 * @param minTurns    m, the turns always kept (4)
 * @param tokenTarget the token size the tail may grow to (128)
 */
public record ContinuityTail(int minTurns, int tokenTarget) {

    public static final ContinuityTail DEFAULT = new ContinuityTail(4, 128);

    public ContinuityTail {
        if (minTurns < 0 || tokenTarget < 0) {
            throw new IllegalArgumentException("minTurns and tokenTarget must not be negative");
        }
    }

    /** The role of a turn, as far as pairing is concerned. */
    public interface Turn {
        boolean isUser();

        boolean isAssistant();
    }

    /** Index of the first turn of the tail in chronologically ordered {@code turns} (size() when empty). */
    public <T extends Turn> int start(List<T> turns, ToIntFunction<T> tokens) {
        int n = turns.size();
        int start = Math.max(0, n - minTurns);
        long used = 0;
        for (int i = start; i < n; i++) {
            used += tokens.applyAsInt(turns.get(i));
        }
        while (start > 0 && used + tokens.applyAsInt(turns.get(start - 1)) <= tokenTarget) {
            start--;
            used += tokens.applyAsInt(turns.get(start));
        }
        if (start > 0 && start < n && turns.get(start).isAssistant() && turns.get(start - 1).isUser()) {
            start--;
        }
        return start;
    }
}
