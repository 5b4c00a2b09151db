package io.engram.jobs.store;

import io.engram.jobs.ingest.ForgetEvent;
import io.engram.model.collapse.StoreShape;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import java.time.Instant;
import java.util.List;

/**
 * One change to a tenant's store, in the order the tenant's writer applies it: index a record, delete one,
 * drop the chunks of a document's older versions, or count a cycle's merge signals. The writer passes the
 * learning-store changes on to the collapse detector after they are written, stamped with their cycle, and
 * adds {@link Kind#CLOSE_CYCLE} where a cycle ends. Flat fields (arrays, not lists) so Flink serializes it
 * as a POJO, without Kryo.
 */
public record StoreOp(Kind kind, String tenantId, String id, String type, Integer tier, String text, float[] embedding,
                      String[] sourceRefs, int generation, Double confidence, Double decayRate, Double authority,
                      String sessionId, String userId, String role, String agentId, String docPath, Long docVersion,
                      Integer position, int tokens, long tsMillis, String cycleId, String closeReason,
                      int floorViolations, int guardRefusals) {

    public enum Kind { UPSERT, DELETE, REPLACE_DOCUMENT, MERGE_SIGNALS, CLOSE_CYCLE, FORGET }

    public static StoreOp upsert(MemoryRecord r, String cycleId) {
        return new StoreOp(Kind.UPSERT, r.tenantId(), r.id(), r.type().label(), r.tier(), r.text(), r.embedding(),
                r.sourceRefs().toArray(String[]::new), r.generation(), r.confidence(), r.decayRate(), r.authority(),
                r.sessionId(), r.userId(), r.role(), r.agentId(), r.docPath(), r.docVersion(), r.position(), r.tokens(),
                r.ts().toEpochMilli(), cycleId, null, 0, 0);
    }

    public static StoreOp delete(String tenantId, String id, RecordType type, String sessionId, long tsMillis,
                                 String cycleId) {
        return new StoreOp(Kind.DELETE, tenantId, id, type.label(), null, null, null, null, 0, null, null, null,
                sessionId, null, null, null, null, null, null, 0, tsMillis, cycleId, null, 0, 0);
    }

    /** Drops the chunks of versions of the document below {@code keepVersion}. */
    public static StoreOp replaceDocument(String tenantId, String agentId, String docPath, long keepVersion,
                                          long tsMillis) {
        return new StoreOp(Kind.REPLACE_DOCUMENT, tenantId, agentId + "/" + docPath, null, null, null, null, null, 0,
                null, null, null, null, null, null, agentId, docPath, keepVersion, null, 0, tsMillis, null, null, 0, 0);
    }

    /**
     * A forget, applied in the tenant's order of changes: {@code id} is the forget's id, {@code type} its scope's
     * label and {@code text} its target; {@code tsMillis} is when it was requested.
     */
    public static StoreOp forget(ForgetEvent f) {
        return new StoreOp(Kind.FORGET, f.tenantId(), f.forgetId(), f.scope().label(), null, f.target(), null, null, 0,
                null, null, null, null, null, null, null, null, null, null, 0, f.requestedAtMillis(), null, null, 0, 0);
    }

    /** The forget this change is ({@link #forget}). */
    public ForgetEvent toForget() {
        return new ForgetEvent(tenantId, id, ForgetScope.ofLabel(type), text, tsMillis);
    }

    /** Merges the generation guard refused and merges below the information floor, for the cycle's row. */
    public static StoreOp mergeSignals(String tenantId, String sessionId, long tsMillis, int floorViolations,
                                       int guardRefusals) {
        return new StoreOp(Kind.MERGE_SIGNALS, tenantId, "merge-signals", null, null, null, null, null, 0, null, null,
                null, sessionId, null, null, null, null, null, null, 0, tsMillis, null, null, floorViolations, guardRefusals);
    }

    /** The end of a tenant's cycle, and why it ended ({@link io.engram.model.collapse.CycleClock}'s reasons). */
    public static StoreOp closeCycle(String tenantId, String cycleId, String reason, long tsMillis) {
        return new StoreOp(Kind.CLOSE_CYCLE, tenantId, cycleId, null, null, null, null, null, 0, null, null, null,
                null, null, null, null, null, null, null, 0, tsMillis, cycleId, reason, 0, 0);
    }

    public MemoryRecord toRecord() {
        return new MemoryRecord(id, tenantId, RecordType.ofLabel(type), tier, text, embedding,
                sourceRefs == null ? List.of() : List.of(sourceRefs), generation, confidence, decayRate, authority,
                sessionId, userId, role, agentId, docPath, docVersion, position, tokens, Instant.ofEpochMilli(tsMillis));
    }

    public RecordType recordType() {
        return type == null ? null : RecordType.ofLabel(type);
    }

    /** An upsert still without its vector. */
    public boolean needsEmbedding() {
        return kind == Kind.UPSERT && embedding == null;
    }

    /**
     * When the change happened in event time, which cycles are measured in: its record timestamp (a gateway's
     * {@code ts}; the time compaction made it, for a summary later than its own {@code tsMillis}, its last turn's).
     */
    public long writtenAt(Long recordTimestamp) {
        return recordTimestamp != null ? recordTimestamp : tsMillis;
    }

    /** A change compaction made (gateways never write summaries); the writer applies these in event-time order. */
    public boolean fromCompaction() {
        return kind == Kind.MERGE_SIGNALS
                || ((kind == Kind.UPSERT || kind == Kind.DELETE) && recordType() == RecordType.SUMMARY);
    }

    /** Whether the collapse detector sees this change: writes to the learning store and merge signals. */
    public boolean touchesLearningStore() {
        return kind == Kind.MERGE_SIGNALS
                || ((kind == Kind.UPSERT || kind == Kind.DELETE) && StoreShape.LEARNING_TYPES.contains(recordType()));
    }

    /** With its vector; the model's token count fills {@code tokens} when the producer did not count them. */
    public StoreOp embedded(float[] vector, int modelTokens) {
        return new StoreOp(kind, tenantId, id, type, tier, text, vector, sourceRefs, generation, confidence, decayRate,
                authority, sessionId, userId, role, agentId, docPath, docVersion, position,
                tokens > 0 ? tokens : modelTokens, tsMillis, cycleId, closeReason, floorViolations, guardRefusals);
    }

    /** Without its vector: what the collapse detector needs is the text. */
    public StoreOp withoutVector() {
        return new StoreOp(kind, tenantId, id, type, tier, text, null, sourceRefs, generation, confidence, decayRate,
                authority, sessionId, userId, role, agentId, docPath, docVersion, position, tokens, tsMillis, cycleId,
                closeReason, floorViolations, guardRefusals);
    }

    public StoreOp withCycle(String cycle) {
        return new StoreOp(kind, tenantId, id, type, tier, text, embedding, sourceRefs, generation, confidence,
                decayRate, authority, sessionId, userId, role, agentId, docPath, docVersion, position, tokens, tsMillis,
                cycle, closeReason, floorViolations, guardRefusals);
    }
}
