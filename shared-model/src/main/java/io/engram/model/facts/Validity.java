package io.engram.model.facts;

import io.engram.model.retrieval.MemoryRecord;
import java.time.Instant;

/**
 * Whether a record holds at an instant (docs/contracts.md, "Supersession, validity and expiry"): not superseded
 * by then ({@code superseded_at} absent or after it), started ({@code valid_from} absent or not after it), not
 * ended ({@code valid_until} absent or after it) and not expired ({@code expires_at} absent or after it: an expired
 * record leaves reads at once, before the pipeline deletes it by event time). Asked about a past instant
 * ({@code as_of}, {@code asOf} true), a record also has to exist by then: one without {@code valid_from} starts at
 * its {@code ts}.
 */
public record Validity(Instant at, boolean asOf) {

    public Validity {
        if (at == null) {
            throw new IllegalArgumentException("validity at an instant needs the instant");
        }
    }

    /** What holds now, as stored. */
    public static Validity now(Instant now) {
        return new Validity(now, false);
    }

    /** What held at {@code asOf}, or now when it is null. */
    public static Validity at(Instant asOf, Instant now) {
        return asOf == null ? now(now) : new Validity(asOf, true);
    }

    /** Whether {@code r} holds at this instant. */
    public boolean holds(MemoryRecord r) {
        if (r.supersededAt() != null && !r.supersededAt().isAfter(at)) {
            return false;
        }
        if (endedBy(r.validUntil()) || endedBy(r.expiresAt())) {
            return false;
        }
        Instant start = r.validFrom() != null || !asOf ? r.validFrom() : r.ts();
        return start == null || !start.isAfter(at);
    }

    /** Whether an end ({@code valid_until}, {@code expires_at}; null: none) has come by this instant. */
    private boolean endedBy(Instant end) {
        return end != null && !end.isAfter(at);
    }
}
