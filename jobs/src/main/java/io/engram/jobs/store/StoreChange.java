package io.engram.jobs.store;

import io.engram.jobs.ingest.ForgetEvent;
import io.engram.jobs.serde.SerializerTypeInfo;
import io.engram.model.collapse.StoreShape;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import java.time.Instant;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * One change to a tenant's store, in the order the tenant's writer applies it: index a record, delete one, drop
 * the chunks of a document's older versions, forget, or count a cycle's merge signals. The writer passes the
 * learning-store changes on to the collapse detector after they are written; the detector decides their cycles in
 * event-time order. Each kind is a record of its own fields; streams and the writer's state
 * carry them through {@link StoreChangeSerializer}.
 */
public sealed interface StoreChange permits StoreChange.Upsert, StoreChange.Delete, StoreChange.ReplaceDocument,
        StoreChange.Forget, StoreChange.MergeSignals, StoreChange.Supersede,
        StoreChange.Sweep, StoreChange.DocumentVersion {

    /** The type of a stream of changes. */
    TypeInformation<StoreChange> TYPE = SerializerTypeInfo.of(StoreChange.class, StoreChangeSerializer.INSTANCE);
    /** The serializer of changes in keyed state. */
    TypeSerializer<StoreChange> SERIALIZER = StoreChangeSerializer.INSTANCE;

    String tenantId();

    /** When the change happened in event time: a record's {@code ts}, when a forget was asked, a compaction's time. */
    long tsMillis();

    /** The session the change belongs to, if any: a tenant's compaction changes are ordered by it after their time. */
    default String sessionId() {
        return null;
    }

    /** The cycle a gateway named for the change, or null: the detector decides which cycle it falls into. */
    default String cycleId() {
        return null;
    }

    /** Whether the collapse detector sees this change: writes to the learning store, and merge signals. */
    default boolean touchesLearningStore() {
        return false;
    }


    /** A change compaction made (gateways never write summaries); the writer applies these in event-time order. */
    default boolean fromCompaction() {
        return false;
    }

    /**
     * When the change happened in event time, which cycles are measured in: its record timestamp (a gateway's
     * {@code ts}; the time compaction made it, for a summary later than its own {@code ts}, its last turn's).
     */
    default long writtenAt(Long recordTimestamp) {
        return recordTimestamp != null ? recordTimestamp : tsMillis();
    }

    /**
     * Index a record, overwriting the one of its id. {@code vectorOf}: the texts whose embeddings' mean is its vector
     * (a window's turns, {@link io.engram.model.embed.MeanVector}); empty, its own text is embedded.
     */
    record Upsert(MemoryRecord record, String cycleId, List<String> vectorOf) implements StoreChange {

        public Upsert {
            vectorOf = vectorOf == null ? List.of() : List.copyOf(vectorOf);
        }

        public Upsert(MemoryRecord record, String cycleId) {
            this(record, cycleId, List.of());
        }

        @Override
        public String tenantId() {
            return record.tenantId();
        }

        @Override
        public long tsMillis() {
            return record.ts().toEpochMilli();
        }

        @Override
        public String sessionId() {
            return record.sessionId();
        }

        @Override
        public boolean touchesLearningStore() {
            return StoreShape.LEARNING_TYPES.contains(record.type());
        }

        @Override
        public boolean fromCompaction() {
            return record.type() == RecordType.SUMMARY;
        }

        /** Still without its vector. */
        public boolean needsEmbedding() {
            return record.embedding() == null;
        }

        /** With its vector; the model's token count fills {@code tokens} when the producer did not count them. */
        public Upsert embedded(float[] vector, int modelTokens) {
            return new Upsert(record.withEmbedding(vector, record.tokens() > 0 ? record.tokens() : modelTokens), cycleId);
        }

        /** Without its vector: what the collapse detector needs is the text. */
        public Upsert withoutVector() {
            return new Upsert(record.withEmbedding(null, record.tokens()), cycleId);
        }
    }

    /** Delete the record {@code id} (of {@code type}, in {@code sessionId} if it has one). */
    record Delete(String tenantId, String id, RecordType type, String sessionId, long tsMillis, String cycleId)
            implements StoreChange {

        @Override
        public boolean touchesLearningStore() {
            return StoreShape.LEARNING_TYPES.contains(type);
        }

        @Override
        public boolean fromCompaction() {
            return type == RecordType.SUMMARY;
        }
    }

    /** Drop the chunks of the document's versions below {@code keepVersion}. */
    record ReplaceDocument(String tenantId, String agentId, String docPath, long keepVersion, long tsMillis)
            implements StoreChange {
    }

    /** A forget ({@link ForgetEvent}), applied in the tenant's order of changes; {@code tsMillis} is when it was asked. */
    record Forget(String tenantId, String forgetId, ForgetScope scope, String target, long tsMillis)
            implements StoreChange {

        public static Forget of(ForgetEvent event) {
            return new Forget(event.tenantId(), event.forgetId(), event.scope(), event.target(),
                    event.requestedAtMillis());
        }

        public ForgetEvent event() {
            return new ForgetEvent(tenantId, forgetId, scope, target, tsMillis);
        }
    }

    /** Merges the generation guard refused and merges below the information floor, for the cycle's row. */
    record MergeSignals(String tenantId, String sessionId, long tsMillis, int floorViolations, int guardRefusals,
                        String cycleId) implements StoreChange {

        @Override
        public boolean touchesLearningStore() {
            return true;
        }

        @Override
        public boolean fromCompaction() {
            return true;
        }
    }

    /**
     * Set what supersedes the stored memory {@code id}: {@code by} from {@code atMillis}, or nothing (null, null); a
     * memory not stored stays absent. {@code tsMillis} is the arrival that decided it.
     */
    record Supersede(String tenantId, String id, String by, Long atMillis, long tsMillis) implements StoreChange {
    }

    /** Remove the tenant's records of {@code type} older than its retention: {@code ts} before {@code cutoffMillis}. */
    record Sweep(String tenantId, RecordType type, long cutoffMillis, long tsMillis) implements StoreChange {

        /** The id its audit row and its change carry. */
        public String forgetId() {
            return "retention/" + type.label() + "@" + Instant.ofEpochMilli(tsMillis);
        }
    }

    /**
     * A document version went live ({@code chunks} stored), or the document was deleted: written nowhere, it tells the
     * change feed once its chunks and the older version's removal are written.
     */
    record DocumentVersion(String tenantId, String agentId, String docPath, long version, boolean deleted, int chunks,
                           long tsMillis) implements StoreChange {
    }
}
