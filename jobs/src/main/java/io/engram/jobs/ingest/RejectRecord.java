package io.engram.jobs.ingest;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.engram.client.RejectReason;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** An {@code engram.rejects.v1} record (docs/schemas/reject.v1.json). */
public record RejectRecord(String reasonCode, String message, String tenantId, String sourceTopic, int partition,
                           long offset, byte[] original) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public byte[] toJsonBytes() {
        var o = JSON.createObjectNode().put("schema", "reject.v1").put("reason_code", reasonCode)
                .put("severity", RejectReason.severityOf(reasonCode)).put("message", message);
        if (tenantId != null) {
            o.put("tenant_id", tenantId);
        }
        o.put("source_topic", sourceTopic).put("partition", partition).put("offset", offset)
                .put("original", Base64.getEncoder().encodeToString(original == null ? new byte[0] : original));
        return o.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The Kafka key: where the input came from, so a consumer can de-duplicate. */
    public byte[] key() {
        return (sourceTopic + "/" + partition + "/" + offset).getBytes(StandardCharsets.UTF_8);
    }
}
