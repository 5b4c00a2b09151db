package io.engram.model.retrieval;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * Windows of consecutive turns of one session, indexed next to the turns as records of their own: a question whose
 * evidence is said over several turns ("What did she paint, and why?") matches the window that holds them all
 * better than any one of its turns. A window holds the last {@code size} turns of its session in seq order and one
 * is made every {@code stride} turns; a window hit brings its turns to a context, each once.
 *
 * @param size   turns per window; 0 makes none
 * @param stride turns between two windows of a session
 */
public record TurnWindows(int size, int stride) implements Serializable {

    /** No windows. */
    public static final TurnWindows OFF = new TurnWindows(0, 1);
    /** Six turns every three: each turn in two windows, as the published LLM-free LoCoMo pipelines chunk. */
    public static final TurnWindows DEFAULT = new TurnWindows(6, 3);

    public TurnWindows {
        if (size < 0 || stride < 1 || (size > 0 && stride > size)) {
            throw new IllegalArgumentException("windows need 0 <= size and 1 <= stride <= size: size " + size
                    + ", stride " + stride);
        }
    }

    public boolean on() {
        return size > 0;
    }

    /** Whether a window is due after {@code sinceLast} turns arrived since the session's previous one. */
    public boolean due(int sinceLast) {
        return on() && sinceLast >= stride;
    }

    /** The last {@code size} of a session's turns, in seq order: what it keeps for its next window. */
    public <T> List<T> kept(List<T> inSeqOrder) {
        return new ArrayList<>(inSeqOrder.subList(Math.max(0, inSeqOrder.size() - size), inSeqOrder.size()));
    }

    /** A window's text: its turns' texts, one a line, in seq order (each already names its speaker). */
    public static String text(List<String> turnTexts) {
        return String.join("\n", turnTexts);
    }

    /** A window's record id: its session's, and its first and last turn's. */
    public static String id(String tenantId, String sessionId, String firstTurnId, String lastTurnId) {
        return tenantId + "/" + sessionId + "/window/" + firstTurnId + ".." + lastTurnId;
    }
}
