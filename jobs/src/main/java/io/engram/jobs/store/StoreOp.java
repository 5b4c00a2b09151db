package io.engram.jobs.store;

import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import java.time.Instant;
import java.util.List;

/**
 * A store change as the writer's keyed state held it before {@link StoreChange}: one flat record for every kind,
 * serialized by Flink's POJO serializer, which finds it again by this class name and these fields. Only read: a
 * savepoint of that time restores the compaction changes its writer held through here once
 * ({@link StoreWriterOperator.TimedChange}; docs/operations.md, "Upgrades"). Kept, unchanged in shape, until no
 * such savepoint needs restoring.
 */
public record StoreOp(Kind kind, String tenantId, String id, String type, Integer tier, String text, float[] embedding,
                      String[] sourceRefs, int generation, Double confidence, Double decayRate, Double authority,
                      String sessionId, String userId, String role, String agentId, String docPath, Long docVersion,
                      Integer position, int tokens, long tsMillis, String cycleId, String closeReason,
                      int floorViolations, int guardRefusals) {

    /** The kinds of the time; only compaction's (upserts and deletes of summaries, merge signals) were ever held. */
    public enum Kind { UPSERT, DELETE, REPLACE_DOCUMENT, MERGE_SIGNALS, CLOSE_CYCLE, FORGET }

    /** The change this held. */
    StoreChange toChange() {
        return switch (kind) {
            case UPSERT -> new StoreChange.Upsert(new MemoryRecord(id, tenantId, RecordType.ofLabel(type), tier, text,
                    embedding, sourceRefs == null ? List.of() : List.of(sourceRefs), generation, confidence, decayRate,
                    authority, sessionId, userId, role, agentId, docPath, docVersion, position, tokens,
                    Instant.ofEpochMilli(tsMillis), null, null, null, null, null, null, null, null), cycleId);
            case DELETE -> new StoreChange.Delete(tenantId, id, RecordType.ofLabel(type), sessionId, tsMillis, cycleId);
            case MERGE_SIGNALS -> new StoreChange.MergeSignals(tenantId, sessionId, tsMillis, floorViolations,
                    guardRefusals, cycleId);
            default -> throw new IllegalStateException("the writer never held a " + kind + " change");
        };
    }
}
