package io.engram.model.collapse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CycleRowsTest {

    @Test
    void aRowSurvivesTheColumnShapedJson() {
        CycleMetrics row = new CycleMetrics("t1", "c7", Instant.parse("2026-11-30T01:02:03Z"), "quiet_gap", "cs-1a",
                2, 0.5, 0.45, 0.4, List.of(new SimpleImmutableEntry<>("c000", 0), new SimpleImmutableEntry<>("c001", -1)),
                12, Map.of("memory", 10L, "summary", 2L), 0.75, 0.62, 1, 30, 3, 1, List.of("merge-floor"));
        String json = CycleRows.toJson(row).toString();
        assertThat(json).contains("\"canary_ranks_json\":\"[[\\\"c000\\\",0],[\\\"c001\\\",-1]]\"")
                .contains("\"store_by_type_json\":\"{\\\"memory\\\":10,\\\"summary\\\":2}\"");
        assertThat(CycleRows.fromJson(json)).isEqualTo(row);
    }

    @Test
    void embeddedColumnsMayBeJsonValuesAndMissingMetricsAreNamed() {
        CycleMetrics row = CycleRows.fromJson("{\"tenant_id\":\"t\",\"cycle_id\":\"c\",\"mean_recall\":1,"
                + "\"mean_ndcg\":1,\"store_total\":3,\"distinct_content_ratio\":1,\"store_by_type_json\":{\"lesson\":3}}");
        assertThat(row.storeByType()).isEqualTo(Map.of("lesson", 3L));
        assertThatThrownBy(() -> CycleRows.fromJson("{\"tenant_id\":\"t\",\"cycle_id\":\"c\",\"mean_recall\":1}"))
                .hasMessageContaining("mean_ndcg");
        assertThatThrownBy(() -> CycleRows.fromJson("{\"tenant_id\":")).hasMessageContaining("not a JSON object");
    }
}
