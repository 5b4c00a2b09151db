package io.engram.jobs.collapse;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.jobs.serde.SerializerChecks;
import io.engram.model.collapse.CanarySet;
import io.engram.model.collapse.CollapseAlerts;
import io.engram.model.collapse.CycleMetrics;
import io.engram.model.retrieval.RecordType;
import java.time.Instant;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DetectorSerializersTest {

    private static final Instant TS = Instant.parse("2026-11-20T10:00:00.123456789Z");
    private static final CanarySet.Canary CANARY = new CanarySet.Canary("c001", "acme:memory:m7", RecordType.LESSON,
            "invoices migration nightly");

    @Test
    void aCycleRowReadsBackFieldForField() throws Exception {
        CycleMetrics row = new CycleMetrics("acme", "c42", TS, "quiet_gap", "cs-1", 2, 0.5, 0.4, 0.3,
                List.of(new SimpleImmutableEntry<>("c000", 0), new SimpleImmutableEntry<>("c001", -1)), 12,
                Map.of("memory", 7L, "summary", 5L), 0.9, 0.75, 1, 3, 2, 1, List.of("collapse-recall", "churn"));
        assertThat(SerializerChecks.roundTrip(DetectorSerializers.CycleMetricsSerializer.INSTANCE, row)).isEqualTo(row);
    }

    @Test
    void aCanarySetReadsBackWithItsCanariesInOrder() throws Exception {
        CanarySet set = new CanarySet("cs-9", List.of(new CanarySet.Canary("c000", "a", RecordType.SUMMARY, "x y"), CANARY));
        assertThat(SerializerChecks.roundTrip(DetectorSerializers.CanarySetSerializer.INSTANCE, set)).isEqualTo(set);
    }

    @Test
    void anAlertAndAMintedCanaryReadBack() throws Exception {
        FiredAlert alert = new FiredAlert("acme", "c42", CollapseAlerts.Kind.COLLAPSE_SHRINK, TS, "cs-1",
                "store_total 40 < 0.8 × 60");
        assertThat(SerializerChecks.roundTrip(DetectorSerializers.FiredAlertSerializer.INSTANCE, alert)).isEqualTo(alert);
        MintedCanary minted = new MintedCanary("acme", "cs-1", CANARY, TS);
        assertThat(SerializerChecks.roundTrip(DetectorSerializers.MintedCanarySerializer.INSTANCE, minted)).isEqualTo(minted);
    }

    @Test
    void anAlertIsPublishedAsAlertV1() {
        FiredAlert alert = new FiredAlert("acme", "c42", CollapseAlerts.Kind.CHURN, TS, "cs-1", "flat");
        assertThat(new String(alert.toAlertJson(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo(
                "{\"schema\":\"alert.v1\",\"tenant_id\":\"acme\",\"cycle_id\":\"c42\",\"kind\":\"churn\","
                        + "\"ts\":\"2026-11-20T10:00:00.123456789Z\",\"canary_set_id\":\"cs-1\",\"detail\":\"flat\"}");
    }
}
