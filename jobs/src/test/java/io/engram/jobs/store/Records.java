package io.engram.jobs.store;

import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import java.time.Instant;
import java.util.List;

/** Compact builders of memory records for tests. */
public final class Records {

    public static final Instant T0 = Instant.parse("2026-11-01T10:00:00Z");

    private Records() {
    }

    public static MemoryRecord memory(String tenant, String id, String text, float[] embedding) {
        return new MemoryRecord(id, tenant, RecordType.MEMORY, null, text, embedding, List.of(), 0, null, null, null,
                null, null, null, null, null, null, null, text.split("\\s+").length, T0);
    }

    public static MemoryRecord chunk(String tenant, String id, RecordType type, int tier, String docPath, long version,
                                     int position, String text, float[] embedding) {
        return new MemoryRecord(id, tenant, type, tier, text, embedding, List.of(), 0, null, null, type == RecordType.LORE ? 1.0 : null,
                null, null, null, "agent-1", docPath, version, position, text.split("\\s+").length, T0);
    }

    public static MemoryRecord turn(String tenant, String session, String id, String role, int seq, String text,
                                    int tokens, float[] embedding) {
        return new MemoryRecord(id, tenant, RecordType.TURN, null, text, embedding, List.of(), 0, null, null, null,
                session, "user-1", role, null, null, null, seq, tokens, T0.plusSeconds(seq));
    }
}
