package io.engram.jobs.compaction;

import io.engram.jobs.serde.LayoutSerializer;
import io.engram.jobs.serde.Layout;
import io.engram.model.compaction.PreservationScore;
import io.engram.model.compaction.SessionCompactor.SummaryRecord;
import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/** A session's live summary, in compaction's keyed state and in each {@link CompactionResult}. */
final class SummaryRecordSerializer extends LayoutSerializer<SummaryRecord> {

    private static final long serialVersionUID = 1L;
    static final SummaryRecordSerializer INSTANCE = new SummaryRecordSerializer();

    @Override
    public void serialize(SummaryRecord s, DataOutputView out) throws IOException {
        Layout.writeString(s.id(), out);
        Layout.writeString(s.text(), out);
        Layout.writeVector(s.embedding(), out);
        Layout.writeStrings(s.sourceRefs(), out);
        out.writeInt(s.generation());
        out.writeDouble(s.score().qAlign());
        out.writeDouble(s.score().qCover());
        out.writeDouble(s.score().confidence());
        out.writeDouble(s.score().decayRate());
        Layout.writeInstant(s.from(), out);
        Layout.writeInstant(s.to(), out);
        out.writeInt(s.sourceTokens());
        out.writeInt(s.summaryTokens());
    }

    @Override
    public SummaryRecord deserialize(DataInputView in) throws IOException {
        String id = Layout.readString(in);
        String text = Layout.readString(in);
        float[] embedding = Layout.readVector(in);
        var sourceRefs = Layout.readStrings(in);
        int generation = in.readInt();
        PreservationScore score = new PreservationScore(in.readDouble(), in.readDouble(), in.readDouble(), in.readDouble());
        return new SummaryRecord(id, text, embedding, sourceRefs, generation, score, Layout.readInstant(in),
                Layout.readInstant(in), in.readInt(), in.readInt());
    }
}
