package io.engram.model.facts;

import io.engram.model.retrieval.RecordType;
import java.io.Serializable;
import java.time.Duration;

/**
 * How long a tenant keeps its records, by type (docs/contracts.md, "Supersession, validity and expiry"): turns,
 * summaries and memories (lessons and knowledge with them) each up to a maximum age by event time, or for ever
 * (null). Records are removed by sweeps on whole minutes: a record of {@code ts} goes at the first sweep at or after
 * {@code ts + maxAge}.
 */
public record Retention(Duration turns, Duration summaries, Duration memories) implements Serializable {

    /** Records kept for ever. */
    public static final Retention NONE = new Retention(null, null, null);
    /** The step of the sweeps: at most this long passes between a record's age and its removal (in event time). */
    public static final long SWEEP_STEP_MILLIS = 60_000;

    public Retention {
        for (Duration d : new Duration[] {turns, summaries, memories}) {
            if (d != null && (d.isNegative() || d.isZero())) {
                throw new IllegalArgumentException("a retention is a positive duration: " + d);
            }
        }
    }

    /** The maximum age of a record of {@code type}, or null when kept for ever (agent documents always are). */
    public Duration maxAge(RecordType type) {
        return switch (type) {
            case TURN, WINDOW -> turns; // a window of turns goes with them
            case SUMMARY -> summaries;
            case MEMORY, LESSON, KNOWLEDGE -> memories;
            case INVARIANT, LORE -> null;
        };
    }

    /** The sweep that removes a record of {@code tsMillis} kept for {@code maxAge}: the first whole minute at or after its end. */
    public static long sweepAt(long tsMillis, Duration maxAge) {
        return -Math.floorDiv(-(tsMillis + maxAge.toMillis()), SWEEP_STEP_MILLIS) * SWEEP_STEP_MILLIS;
    }

    /** What a sweep at {@code sweepMillis} removes: the records whose {@code ts} is before this (epoch millis). */
    public static long cutoff(long sweepMillis, Duration maxAge) {
        return sweepMillis - maxAge.toMillis() + 1;
    }
}
