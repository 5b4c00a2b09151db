package io.engram.jobs.store;

import io.engram.jobs.serde.Layout;
import io.engram.jobs.serde.LayoutSerializer;
import io.engram.jobs.store.StoreChange.Delete;
import io.engram.jobs.store.StoreChange.DocumentVersion;
import io.engram.jobs.store.StoreChange.Forget;
import io.engram.jobs.store.StoreChange.MergeSignals;
import io.engram.jobs.store.StoreChange.ReplaceDocument;
import io.engram.jobs.store.StoreChange.Supersede;
import io.engram.jobs.store.StoreChange.Sweep;
import io.engram.jobs.store.StoreChange.Upsert;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import java.io.IOException;
import java.time.Instant;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A {@link StoreChange} between operators and in the writer's keyed state: a byte naming its kind, then that
 * kind's fields. A change to the layout raises {@link #LAYOUT} (docs/operations.md, "Upgrades").
 */
final class StoreChangeSerializer extends LayoutSerializer<StoreChange> {

    private static final long serialVersionUID = 1L;
    static final StoreChangeSerializer INSTANCE = new StoreChangeSerializer();
    /**
     * The layout's version, also that of every state layout holding changes ({@link HeldChange.Serializer}). 2: a
     * record's facts (key, supersedes, superseded by and at, validity, expiry) after its {@code ts}; 1, still read,
     * had none.
     */
    static final int LAYOUT = 3;
    private static final int LAYOUT_WITHOUT_SPANS = 2;
    private static final int LAYOUT_WITHOUT_FACTS = 1;

    /** The layout this serializer reads: {@link #LAYOUT}, or an earlier one while a savepoint of it is restored. */
    private final int reads;

    StoreChangeSerializer() {
        this(LAYOUT);
    }

    private StoreChangeSerializer(int reads) {
        this.reads = reads;
    }

    private static final byte UPSERT = 1;
    private static final byte DELETE = 2;
    private static final byte REPLACE_DOCUMENT = 3;
    private static final byte FORGET = 4;
    private static final byte MERGE_SIGNALS = 5;
    private static final byte SUPERSEDE = 7;
    private static final byte SWEEP = 8;
    /** Added without a new layout: no state holds one (the writer writes its batch before every barrier). */
    private static final byte DOCUMENT_VERSION = 9;
    /** An upsert whose vector is made of other texts' (a window's): added without a new layout, as no state holds one. */
    private static final byte UPSERT_OF_TEXTS = 10;

    @Override
    protected int layoutVersion() {
        return reads;
    }

    @Override
    protected StoreChangeSerializer readingLayout(int version) {
        return version == LAYOUT_WITHOUT_FACTS || version == LAYOUT_WITHOUT_SPANS ? new StoreChangeSerializer(version)
                : null;
    }

    @Override
    public void serialize(StoreChange change, DataOutputView out) throws IOException {
        if (change instanceof Upsert u) {
            out.writeByte(u.vectorOf().isEmpty() ? UPSERT : UPSERT_OF_TEXTS);
            writeRecord(u.record(), out);
            Layout.writeString(u.cycleId(), out);
            if (!u.vectorOf().isEmpty()) {
                Layout.writeStrings(u.vectorOf(), out);
            }
        } else if (change instanceof Delete d) {
            out.writeByte(DELETE);
            Layout.writeString(d.tenantId(), out);
            Layout.writeString(d.id(), out);
            Layout.writeString(d.type().label(), out);
            Layout.writeString(d.sessionId(), out);
            out.writeLong(d.tsMillis());
            Layout.writeString(d.cycleId(), out);
        } else if (change instanceof ReplaceDocument r) {
            out.writeByte(REPLACE_DOCUMENT);
            Layout.writeString(r.tenantId(), out);
            Layout.writeString(r.agentId(), out);
            Layout.writeString(r.docPath(), out);
            out.writeLong(r.keepVersion());
            out.writeLong(r.tsMillis());
        } else if (change instanceof Forget f) {
            out.writeByte(FORGET);
            Layout.writeString(f.tenantId(), out);
            out.writeLong(f.tsMillis());
            Layout.writeString(f.forgetId(), out);
            Layout.writeString(f.scope().label(), out);
            Layout.writeString(f.target(), out);
        } else if (change instanceof Supersede s) {
            out.writeByte(SUPERSEDE);
            Layout.writeString(s.tenantId(), out);
            Layout.writeString(s.id(), out);
            Layout.writeString(s.by(), out);
            Layout.writeOptional(s.atMillis(), out, out::writeLong);
            out.writeLong(s.tsMillis());
        } else if (change instanceof Sweep s) {
            out.writeByte(SWEEP);
            Layout.writeString(s.tenantId(), out);
            Layout.writeString(s.type().label(), out);
            out.writeLong(s.cutoffMillis());
            out.writeLong(s.tsMillis());
        } else if (change instanceof DocumentVersion v) {
            out.writeByte(DOCUMENT_VERSION);
            Layout.writeString(v.tenantId(), out);
            Layout.writeString(v.agentId(), out);
            Layout.writeString(v.docPath(), out);
            out.writeLong(v.version());
            out.writeBoolean(v.deleted());
            out.writeInt(v.chunks());
            out.writeLong(v.tsMillis());
        } else {
            MergeSignals m = (MergeSignals) change; // what only the collapse detector reads
            out.writeByte(MERGE_SIGNALS);
            Layout.writeString(m.tenantId(), out);
            Layout.writeString(m.sessionId(), out);
            out.writeLong(m.tsMillis());
            out.writeInt(m.floorViolations());
            out.writeInt(m.guardRefusals());
            Layout.writeString(m.cycleId(), out);
        }
    }

    @Override
    public StoreChange deserialize(DataInputView in) throws IOException {
        byte kind = in.readByte();
        return switch (kind) {
            case UPSERT -> new Upsert(readRecord(in), Layout.readString(in));
            case UPSERT_OF_TEXTS -> new Upsert(readRecord(in), Layout.readString(in), Layout.readStrings(in));
            case DELETE -> new Delete(Layout.readString(in), Layout.readString(in), RecordType.ofLabel(Layout.readString(in)),
                    Layout.readString(in), in.readLong(), Layout.readString(in));
            case REPLACE_DOCUMENT -> new ReplaceDocument(Layout.readString(in), Layout.readString(in),
                    Layout.readString(in), in.readLong(), in.readLong());
            case FORGET -> forget(Layout.readString(in), in.readLong(), in);
            case MERGE_SIGNALS -> new MergeSignals(Layout.readString(in), Layout.readString(in), in.readLong(),
                    in.readInt(), in.readInt(), Layout.readString(in));
            case SUPERSEDE -> new Supersede(Layout.readString(in), Layout.readString(in), Layout.readString(in),
                    Layout.readOptional(in, in::readLong), in.readLong());
            case SWEEP -> new Sweep(Layout.readString(in), RecordType.ofLabel(Layout.readString(in)), in.readLong(),
                    in.readLong());
            case DOCUMENT_VERSION -> new DocumentVersion(Layout.readString(in), Layout.readString(in),
                    Layout.readString(in), in.readLong(), in.readBoolean(), in.readInt(), in.readLong());
            default -> throw new IOException("not a store change: kind " + kind);
        };
    }

    private static Forget forget(String tenantId, long tsMillis, DataInputView in) throws IOException {
        return new Forget(tenantId, Layout.readString(in), ForgetScope.ofLabel(Layout.readString(in)),
                Layout.readString(in), tsMillis);
    }

    private static void writeRecord(MemoryRecord r, DataOutputView out) throws IOException {
        Layout.writeString(r.id(), out);
        Layout.writeString(r.tenantId(), out);
        Layout.writeString(r.type().label(), out);
        Layout.writeOptional(r.tier(), out, out::writeInt);
        Layout.writeString(r.text(), out);
        Layout.writeOptional(r.embedding(), out, vector -> Layout.writeVector(vector, out));
        Layout.writeStrings(r.sourceRefs(), out);
        out.writeInt(r.generation());
        Layout.writeOptional(r.confidence(), out, out::writeDouble);
        Layout.writeOptional(r.decayRate(), out, out::writeDouble);
        Layout.writeOptional(r.authority(), out, out::writeDouble);
        Layout.writeString(r.sessionId(), out);
        Layout.writeString(r.userId(), out);
        Layout.writeString(r.role(), out);
        Layout.writeString(r.agentId(), out);
        Layout.writeString(r.docPath(), out);
        Layout.writeOptional(r.docVersion(), out, out::writeLong);
        Layout.writeOptional(r.position(), out, out::writeInt);
        out.writeInt(r.tokens());
        Layout.writeInstant(r.ts(), out);
        Layout.writeString(r.key(), out);
        Layout.writeStrings(r.supersedes(), out);
        Layout.writeString(r.supersededBy(), out);
        for (Instant date : new Instant[] {r.supersededAt(), r.validFrom(), r.validUntil(), r.expiresAt(),
                r.sourcesFrom()}) {
            Layout.writeOptional(date, out, d -> Layout.writeInstant(d, out));
        }
    }

    private MemoryRecord readRecord(DataInputView in) throws IOException {
        MemoryRecord r = new MemoryRecord(Layout.readString(in), Layout.readString(in),
                RecordType.ofLabel(Layout.readString(in)), Layout.readOptional(in, in::readInt), Layout.readString(in),
                Layout.readOptional(in, () -> Layout.readVector(in)), Layout.readStrings(in), in.readInt(),
                Layout.readOptional(in, in::readDouble), Layout.readOptional(in, in::readDouble),
                Layout.readOptional(in, in::readDouble), Layout.readString(in), Layout.readString(in),
                Layout.readString(in), Layout.readString(in), Layout.readString(in), Layout.readOptional(in, in::readLong),
                Layout.readOptional(in, in::readInt), in.readInt(), Layout.readInstant(in), null, null, null, null, null,
                null, null, null);
        if (reads == LAYOUT_WITHOUT_FACTS) {
            return r;
        }
        MemoryRecord.Builder withFacts = r.toBuilder().key(Layout.readString(in)).supersedes(Layout.readStrings(in))
                .supersededBy(Layout.readString(in), readDate(in)).validity(readDate(in), readDate(in))
                .expiresAt(readDate(in));
        return (reads == LAYOUT_WITHOUT_SPANS ? withFacts : withFacts.sourcesFrom(readDate(in))).build();
    }

    private static Instant readDate(DataInputView in) throws IOException {
        return Layout.readOptional(in, () -> Layout.readInstant(in));
    }

}
