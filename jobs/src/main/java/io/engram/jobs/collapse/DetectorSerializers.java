package io.engram.jobs.collapse;

import io.engram.jobs.serde.LayoutSerializer;
import io.engram.jobs.serde.Layout;
import io.engram.jobs.serde.SerializerTypeInfo;
import io.engram.model.collapse.CanarySet;
import io.engram.model.collapse.CollapseAlerts;
import io.engram.model.collapse.CycleMetrics;
import io.engram.model.retrieval.RecordType;
import java.io.IOException;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The detector's typed seams: its cycle rows, fired alerts and minted canaries as streams, and its canary set
 * and history window in keyed state. Each layout is version 1 of its snapshot.
 */
final class DetectorSerializers {

    static final TypeInformation<CycleMetrics> CYCLE_ROWS = SerializerTypeInfo.of(CycleMetrics.class, CycleMetricsSerializer.INSTANCE);
    static final TypeInformation<FiredAlert> ALERTS = SerializerTypeInfo.of(FiredAlert.class, FiredAlertSerializer.INSTANCE);
    static final TypeInformation<MintedCanary> CANARIES = SerializerTypeInfo.of(MintedCanary.class, MintedCanarySerializer.INSTANCE);

    private DetectorSerializers() {
    }

    static final class CycleMetricsSerializer extends LayoutSerializer<CycleMetrics> {
        private static final long serialVersionUID = 1L;
        static final CycleMetricsSerializer INSTANCE = new CycleMetricsSerializer();

        @Override
        public void serialize(CycleMetrics r, DataOutputView out) throws IOException {
            Layout.writeString(r.tenantId(), out);
            Layout.writeString(r.cycleId(), out);
            Layout.writeInstant(r.ts(), out);
            Layout.writeString(r.closeReason(), out);
            Layout.writeString(r.canarySetId(), out);
            out.writeInt(r.canaryCount());
            out.writeDouble(r.meanRecall());
            out.writeDouble(r.meanNdcg());
            out.writeDouble(r.meanMrr());
            Layout.writeList(r.canaryRanks(), out, rank -> {
                Layout.writeString(rank.getKey(), out);
                out.writeInt(rank.getValue());
            });
            out.writeLong(r.storeTotal());
            Layout.writeList(new TreeMap<>(r.storeByType()).entrySet(), out, type -> {
                Layout.writeString(type.getKey(), out);
                out.writeLong(type.getValue());
            });
            out.writeDouble(r.distinctContentRatio());
            out.writeDouble(r.meanBigramDiversity());
            out.writeLong(r.overGenerationCount());
            out.writeLong(r.acceptedActions());
            out.writeLong(r.mergeFloorViolations());
            out.writeLong(r.generationGuardRefusals());
            Layout.writeStrings(r.alerts(), out);
        }

        @Override
        public CycleMetrics deserialize(DataInputView in) throws IOException {
            String tenant = Layout.readString(in);
            String cycle = Layout.readString(in);
            var ts = Layout.readInstant(in);
            String reason = Layout.readString(in);
            String set = Layout.readString(in);
            int count = in.readInt();
            double recall = in.readDouble();
            double ndcg = in.readDouble();
            double mrr = in.readDouble();
            List<Map.Entry<String, Integer>> ranks = Layout.readList(in,
                    () -> new SimpleImmutableEntry<>(Layout.readString(in), in.readInt()));
            long total = in.readLong();
            Map<String, Long> byType = new TreeMap<>();
            for (Map.Entry<String, Long> type : Layout.readList(in,
                    () -> new SimpleImmutableEntry<>(Layout.readString(in), in.readLong()))) {
                byType.put(type.getKey(), type.getValue());
            }
            return new CycleMetrics(tenant, cycle, ts, reason, set, count, recall, ndcg, mrr, ranks, total, byType,
                    in.readDouble(), in.readDouble(), in.readLong(), in.readLong(), in.readLong(), in.readLong(),
                    Layout.readStrings(in));
        }
    }

    static final class CanarySetSerializer extends LayoutSerializer<CanarySet> {
        private static final long serialVersionUID = 1L;
        static final CanarySetSerializer INSTANCE = new CanarySetSerializer();

        @Override
        public void serialize(CanarySet set, DataOutputView out) throws IOException {
            Layout.writeString(set.id(), out);
            Layout.writeList(set.canaries(), out, c -> writeCanary(c, out));
        }

        @Override
        public CanarySet deserialize(DataInputView in) throws IOException {
            return new CanarySet(Layout.readString(in), Layout.readList(in, () -> readCanary(in)));
        }
    }

    static final class FiredAlertSerializer extends LayoutSerializer<FiredAlert> {
        private static final long serialVersionUID = 1L;
        static final FiredAlertSerializer INSTANCE = new FiredAlertSerializer();

        @Override
        public void serialize(FiredAlert a, DataOutputView out) throws IOException {
            Layout.writeString(a.tenantId(), out);
            Layout.writeString(a.cycleId(), out);
            Layout.writeString(a.kind().name(), out);
            Layout.writeInstant(a.ts(), out);
            Layout.writeString(a.canarySetId(), out);
            Layout.writeString(a.detail(), out);
        }

        @Override
        public FiredAlert deserialize(DataInputView in) throws IOException {
            return new FiredAlert(Layout.readString(in), Layout.readString(in),
                    CollapseAlerts.Kind.valueOf(Layout.readString(in)), Layout.readInstant(in), Layout.readString(in),
                    Layout.readString(in));
        }
    }

    static final class MintedCanarySerializer extends LayoutSerializer<MintedCanary> {
        private static final long serialVersionUID = 1L;
        static final MintedCanarySerializer INSTANCE = new MintedCanarySerializer();

        @Override
        public void serialize(MintedCanary m, DataOutputView out) throws IOException {
            Layout.writeString(m.tenantId(), out);
            Layout.writeString(m.canarySetId(), out);
            writeCanary(m.canary(), out);
            Layout.writeInstant(m.createdAt(), out);
        }

        @Override
        public MintedCanary deserialize(DataInputView in) throws IOException {
            return new MintedCanary(Layout.readString(in), Layout.readString(in), readCanary(in), Layout.readInstant(in));
        }
    }

    private static void writeCanary(CanarySet.Canary c, DataOutputView out) throws IOException {
        Layout.writeString(c.id(), out);
        Layout.writeString(c.anchorRef(), out);
        Layout.writeString(c.anchorType().label(), out);
        Layout.writeString(c.query(), out);
    }

    private static CanarySet.Canary readCanary(DataInputView in) throws IOException {
        return new CanarySet.Canary(Layout.readString(in), Layout.readString(in), RecordType.ofLabel(Layout.readString(in)),
                Layout.readString(in));
    }
}
