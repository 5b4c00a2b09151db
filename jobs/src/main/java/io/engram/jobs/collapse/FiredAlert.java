package io.engram.jobs.collapse;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.engram.model.collapse.CollapseAlerts;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/** An alert the detector fired on a tenant's cycle: one {@code collapse_alerts} row and one alert.v1 record. */
public record FiredAlert(String tenantId, String cycleId, CollapseAlerts.Kind kind, Instant ts, String canarySetId,
                         String detail) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The alert.v1 payload of {@code engram.alerts.v1} (docs/schemas/alert.v1.json). */
    public byte[] toAlertJson() {
        return JSON.createObjectNode().put("schema", "alert.v1").put("tenant_id", tenantId).put("cycle_id", cycleId)
                .put("kind", kind.label()).put("ts", ts.toString()).put("canary_set_id", canarySetId)
                .put("detail", detail).toString().getBytes(StandardCharsets.UTF_8);
    }
}
