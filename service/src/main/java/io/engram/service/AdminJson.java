package io.engram.service;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/** The JSON of tenants, keys and usage, as the admin routes and {@code GET /v1/usage} answer them. */
final class AdminJson {

    private AdminJson() {
    }

    /** A tenant with its quotas: its own where it has them, else the defaults, {@code null} where unlimited. */
    static ObjectNode tenant(TenantStore.Tenant t, TenantStore.Quotas effective) {
        ObjectNode o = ResponsesJson.JSON.createObjectNode().put("tenant_id", t.tenantId())
                .put("status", t.status().label()).put("created_at", t.createdAt().toString());
        if (t.deletionForgetId() != null) {
            o.put("forget_id", t.deletionForgetId());
        }
        o.set("quotas", quotas(effective));
        return o;
    }

    static ObjectNode quotas(TenantStore.Quotas q) {
        ObjectNode o = ResponsesJson.JSON.createObjectNode();
        o.set("records", ResponsesJson.JSON.valueToTree(q.records()));
        o.set("text_bytes_per_day", ResponsesJson.JSON.valueToTree(q.textBytesPerDay()));
        o.set("writes_per_second", ResponsesJson.JSON.valueToTree(q.writesPerSecond()));
        o.set("reads_per_second", ResponsesJson.JSON.valueToTree(q.readsPerSecond()));
        return o;
    }

    /** A key without its secret. */
    static ObjectNode key(TenantStore.Key k) {
        ObjectNode o = ResponsesJson.JSON.createObjectNode().put("key_id", k.keyId()).put("tenant_id", k.tenantId())
                .put("name", k.name()).put("created_at", k.createdAt().toString());
        ArrayNode scopes = o.putArray("scopes");
        k.scopes().stream().sorted().forEach(s -> scopes.add(s.label()));
        o.set("expires_at", k.expiresAt() == null ? ResponsesJson.JSON.nullNode()
                : ResponsesJson.JSON.getNodeFactory().textNode(k.expiresAt().toString()));
        return o;
    }

    /** A key as made: with its secret, which is shown this once. */
    static ObjectNode madeKey(Administration.MadeKey made) {
        return key(made.key()).put("secret", made.secret());
    }

    static ObjectNode usage(List<UsageLedger.Usage> rows) {
        ObjectNode answer = ResponsesJson.JSON.createObjectNode();
        ArrayNode days = answer.putArray("usage");
        for (UsageLedger.Usage u : rows) {
            days.addObject().put("tenant_id", u.tenantId()).put("day", u.day().toString())
                    .put("records_written", u.recordsWritten()).put("bytes_written", u.bytesWritten())
                    .put("writes", u.writes()).put("reads", u.reads()).put("contexts", u.contexts())
                    .put("forgets", u.forgets()).put("embed_millis", u.embedMillis());
        }
        return answer;
    }
}
