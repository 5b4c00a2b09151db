package io.engram.jobs.collapse;

import org.apache.flink.streaming.api.TimerService;

/**
 * When a subtask's watermark last moved, by the wall clock: what tells the detector that event time stands still,
 * so that a live run's waiting changes may be applied by the wall clock. A timer restored from a checkpoint fires
 * at once when its time passed while the job was down; the restored job has not seen event time yet, so the grace
 * counts from its first look, and the replayed input's watermark, not arrival order, places the waiting changes.
 */
final class EventTimeWatch {

    private long watermark;
    private long movedAt = -1;

    /** Notes the watermark the timer service shows now. */
    void look(TimerService timers) {
        long now = timers.currentWatermark();
        if (movedAt < 0 || now != watermark) {
            watermark = now;
            movedAt = timers.currentProcessingTime();
        }
    }

    /** The wall-clock time until which event time has to stand still to have stood still for {@code graceMillis}. */
    long stillFor(long graceMillis) {
        return movedAt + graceMillis;
    }
}
