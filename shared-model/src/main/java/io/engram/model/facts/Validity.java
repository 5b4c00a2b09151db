package io.engram.model.facts;

import io.engram.model.retrieval.MemoryRecord;
import java.time.Instant;

/**
 * Whether a record holds at an instant (docs/contracts.md, "Supersession, validity and expiry"): not superseded
 * by then ({@code superseded_at} absent or after it), started ({@code valid_from} absent or not after it) and not
 * ended ({@code valid_until} absent or after it). Asked about a past instant ({@code as_of}), a record also has to
 * exist by then: a record without {@code valid_from} starts at its {@code ts}.
 */
public final class Validity {

    private Validity() {
    }

    /** Whether {@code r} holds at {@code at}; {@code pastInstant} when {@code at} is an {@code as_of}, not now. */
    public static boolean holds(MemoryRecord r, Instant at, boolean pastInstant) {
        if (r.supersededAt() != null && !r.supersededAt().isAfter(at)) {
            return false;
        }
        if (r.validUntil() != null && !r.validUntil().isAfter(at)) {
            return false;
        }
        Instant start = r.validFrom() != null || !pastInstant ? r.validFrom() : r.ts();
        return start == null || !start.isAfter(at);
    }
}
