package io.engram.service;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.model.collapse.CollapseAlerts;
import io.engram.model.collapse.CollapseConfig;
import io.engram.model.collapse.CycleMetrics;
import io.engram.model.collapse.CycleRows;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A tenant's memory health over time ({@code GET /v1/health}): its newest cycle rows from {@code cycle_metrics},
 * oldest first, each with the lines its windowed alerts were compared with ({@link CollapseAlerts#thresholds}
 * under the service's {@code collapse.*} settings, which should be the job's), and the alerts fired.
 */
final class CycleHistory {

    private final ForgetLog postgres;
    private final CollapseConfig config;

    CycleHistory(ForgetLog postgres, CollapseConfig config) {
        this.postgres = postgres;
        this.config = config;
    }

    ObjectNode of(String tenant, int limit) throws SQLException {
        List<CycleMetrics> rows = postgres.read(c -> {
            List<CycleMetrics> newestFirst = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT * FROM cycle_metrics WHERE tenant_id = ? ORDER BY ts DESC, cycle_id DESC LIMIT ?")) {
                ps.setString(1, tenant);
                ps.setInt(2, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    ResultSetMetaData columns = rs.getMetaData();
                    while (rs.next()) {
                        ObjectNode row = ResponsesJson.JSON.createObjectNode();
                        for (int i = 1; i <= columns.getColumnCount(); i++) {
                            Object v = rs.getObject(i);
                            row.set(columns.getColumnName(i), ResponsesJson.JSON.valueToTree(
                                    v instanceof java.sql.Timestamp t ? t.toInstant().toString() : v));
                        }
                        newestFirst.add(CycleRows.fromJson(row));
                    }
                }
            }
            Collections.reverse(newestFirst);
            return newestFirst;
        });
        ObjectNode answer = ResponsesJson.JSON.createObjectNode().put("tenant_id", tenant);
        answer.putObject("settings").put("window", config.window()).put("recall_drop", config.recallDrop())
                .put("entropy_drop", config.entropyDrop()).put("shrink_factor", config.shrinkFactor());
        ArrayNode cycles = answer.putArray("cycles");
        for (int i = 0; i < rows.size(); i++) {
            CycleMetrics r = rows.get(i);
            ObjectNode o = cycles.addObject().put("cycle_id", r.cycleId()).put("ts", r.ts().toString())
                    .put("close_reason", r.closeReason()).put("canary_set_id", r.canarySetId())
                    .put("store_total", r.storeTotal()).put("distinct_content_ratio", r.distinctContentRatio())
                    .put("mean_bigram_diversity", r.meanBigramDiversity()).put("mean_recall", r.meanRecall())
                    .put("mean_ndcg", r.meanNdcg()).put("mean_mrr", r.meanMrr())
                    .put("accepted_actions", r.acceptedActions());
            r.alerts().forEach(o.putArray("alerts")::add);
            CollapseAlerts.thresholds(rows.subList(0, i), r, config).ifPresentOrElse(t -> o.putObject("thresholds")
                    .put("recall_floor", t.recallFloor()).put("distinct_ratio_floor", t.distinctRatioFloor())
                    .put("store_floor", t.storeFloor()), () -> o.putNull("thresholds"));
        }
        return answer;
    }

    /** The tenants with cycle rows (an operator's console lists them). */
    List<String> tenants() throws SQLException {
        return postgres.read(c -> {
            List<String> tenants = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT DISTINCT tenant_id FROM cycle_metrics ORDER BY tenant_id");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    tenants.add(rs.getString(1));
                }
            }
            return tenants;
        });
    }
}
