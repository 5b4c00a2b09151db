package io.engram.model.collapse;

import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;

/**
 * Which cycle a tenant's write belongs to (docs/contracts.md §D.1): a cycle closes when the gateway names a different
 * {@code cycle_id}, or when a write comes more than the quiet gap after the previous one. A write without a
 * cycle id (our own compaction, or a gateway that does not name cycles) joins the open cycle, or opens one
 * named {@code q-<time of its first write>}, so replays name it the same.
 */
public record CycleClock(Duration quietGap) implements Serializable {

    /** The write's cycle, and the cycle it closes first (null if none) with why. */
    public record Decision(String cycleId, String closes, String closeReason) {
    }

    public static final String BY_CYCLE_ID = "cycle_id";
    public static final String BY_QUIET_GAP = "quiet_gap";

    public Decision next(String openCycle, long lastWriteMillis, String requestedCycle, long writeMillis) {
        if (openCycle == null) {
            return new Decision(requestedCycle != null ? requestedCycle : quietCycleId(writeMillis), null, null);
        }
        if (requestedCycle != null && !requestedCycle.equals(openCycle)) {
            return new Decision(requestedCycle, openCycle, BY_CYCLE_ID);
        }
        if (requestedCycle == null && writeMillis > lastWriteMillis + quietGap.toMillis()) {
            return new Decision(quietCycleId(writeMillis), openCycle, BY_QUIET_GAP);
        }
        return new Decision(openCycle, null, null);
    }

    /** When an open cycle whose last write was at {@code lastWriteMillis} closes for quiet. */
    public long quietCloseAt(long lastWriteMillis) {
        return lastWriteMillis + quietGap.toMillis() + 1;
    }

    static String quietCycleId(long writeMillis) {
        return "q-" + Instant.ofEpochMilli(writeMillis);
    }
}
