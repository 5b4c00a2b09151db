package io.engram.service;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.model.collapse.CollapseAlerts;
import io.engram.model.collapse.CollapseConfig;
import io.engram.model.collapse.CycleMetrics;
import java.util.List;

/**
 * A tenant's memory health over time as {@code GET /v1/health} shows it: its cycle rows, oldest first, each with
 * the lines its windowed alerts were compared with ({@link CollapseAlerts#thresholds} under the service's
 * {@code collapse.*} settings, which should be the job's), and the alerts fired.
 */
final class CycleHistory {

    private CycleHistory() {
    }

    static ObjectNode json(String tenant, List<CycleMetrics> rows, CollapseConfig config) {
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
}
