package io.engram.jobs.compaction;

import io.engram.jobs.serde.LayoutSerializer;
import io.engram.jobs.serde.Layout;
import io.engram.model.compaction.SessionCompactor.SummaryRecord;
import java.io.IOException;
import java.util.List;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/** What a compaction produced, from the compaction operator to the step that turns it into store changes. */
final class CompactionResultSerializer extends LayoutSerializer<CompactionResult> {

    private static final long serialVersionUID = 1L;
    static final CompactionResultSerializer INSTANCE = new CompactionResultSerializer();

    @Override
    public void serialize(CompactionResult r, DataOutputView out) throws IOException {
        Layout.writeString(r.tenantId(), out);
        Layout.writeString(r.sessionId(), out);
        Layout.writeString(r.userId(), out);
        Layout.writeList(r.summaries(), out, s -> SummaryRecordSerializer.INSTANCE.serialize(s, out));
        Layout.writeStrings(r.compactedTurnIds(), out);
        Layout.writeStrings(r.retiredSummaryIds(), out);
        out.writeInt(r.declinedClusters());
        out.writeInt(r.guardRefusals());
        out.writeInt(r.floorViolations());
    }

    @Override
    public CompactionResult deserialize(DataInputView in) throws IOException {
        String tenant = Layout.readString(in);
        String session = Layout.readString(in);
        String user = Layout.readString(in);
        List<SummaryRecord> summaries = Layout.readList(in, () -> SummaryRecordSerializer.INSTANCE.deserialize(in));
        return new CompactionResult(tenant, session, user, summaries, Layout.readStrings(in), Layout.readStrings(in),
                in.readInt(), in.readInt(), in.readInt());
    }
}
