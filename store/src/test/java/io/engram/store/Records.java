package io.engram.store;

import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import java.time.Instant;

/** Compact builders of memory records for tests. */
public final class Records {

    public static final Instant T0 = Instant.parse("2026-11-01T10:00:00Z");

    private Records() {
    }

    public static MemoryRecord memory(String tenant, String id, String text, float[] embedding) {
        return MemoryRecord.of(id, tenant, RecordType.MEMORY, text, T0).embedding(embedding)
                .tokens(text.split("\\s+").length).build();
    }

    public static MemoryRecord chunk(String tenant, String id, RecordType type, int tier, String docPath, long version,
                                     int position, String text, float[] embedding) {
        return MemoryRecord.of(id, tenant, type, text, T0).tier(tier).embedding(embedding)
                .authority(type == RecordType.LORE ? 1.0 : null).document("agent-1", docPath, version).position(position)
                .tokens(text.split("\\s+").length).build();
    }

    public static MemoryRecord turn(String tenant, String session, String id, String role, int seq, String text,
                                    int tokens, float[] embedding) {
        return MemoryRecord.of(id, tenant, RecordType.TURN, text, T0.plusSeconds(seq)).embedding(embedding)
                .session(session).user("user-1").role(role).position(seq).tokens(tokens).build();
    }
}
