package io.engram.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

/**
 * One input payload ready to send: its kind (topic), its Kafka key and its JSON. Build one with
 * {@link #turn}, {@link #doc} or {@link #memory}.
 */
public record Payload(PayloadKind kind, String key, ObjectNode json) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A payload of {@code kind} as JSON, keyed as its topic's contract says (docs/contracts.md, "Contracts"). */
    public static Payload of(PayloadKind kind, ObjectNode json) {
        String tenant = json.path("tenant_id").asText();
        String key = switch (kind) {
            case TURN -> sessionKey(tenant, json.path("session_id").asText());
            case DOC -> tenant + "/" + json.path("agent_id").asText() + "/" + json.path("path").asText();
            case MEMORY, FORGET -> tenant;
        };
        return new Payload(kind, key, json);
    }

    /** The key of a turn, and of the session it belongs to: {@code tenant_id/session_id}. */
    public static String sessionKey(String tenantId, String sessionId) {
        return tenantId + "/" + sessionId;
    }

    public byte[] bytes() {
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }

    public Instant ts() {
        return Instant.parse(json.path("ts").asText());
    }

    /** A conversation turn; keyed {@code tenant_id/session_id} so a session stays in order on one partition. */
    public static Payload turn(String tenantId, String sessionId, String userId, String turnId, long seq, String role,
                               String text, Instant ts) {
        ObjectNode o = base(PayloadKind.TURN, tenantId);
        o.put("session_id", sessionId);
        if (userId != null) {
            o.put("user_id", userId);
        }
        o.put("turn_id", turnId).put("seq", seq).put("role", role).put("text", text).put("ts", ts.toString());
        return of(PayloadKind.TURN, o);
    }

    /** A version of an agent document; keyed {@code tenant_id/agent_id/path} so versions stay in order. */
    public static Payload doc(String tenantId, String agentId, String path, String docClass, long version,
                              String content, Instant ts) {
        ObjectNode o = base(PayloadKind.DOC, tenantId);
        o.put("agent_id", agentId).put("path", path).put("doc_class", docClass).put("version", version)
                .put("content", content).put("ts", ts.toString());
        return of(PayloadKind.DOC, o);
    }

    /** The deletion of an agent document (all its chunks leave the store). */
    public static Payload docDeleted(String tenantId, String agentId, String path, String docClass, long version,
                                     Instant ts) {
        Payload p = doc(tenantId, agentId, path, docClass, version, "", ts);
        p.json().put("deleted", true);
        return p;
    }

    /** A memory written or replaced by the gateway's consolidation; keyed by tenant so a tenant stays in order. */
    public static Payload memory(String tenantId, String memoryId, String type, String text, List<String> sourceRefs,
                                 int generation, String cycleId, Instant ts) {
        ObjectNode o = base(PayloadKind.MEMORY, tenantId);
        o.put("memory_id", memoryId).put("type", type).put("op", "upsert").put("text", text);
        ArrayNode refs = o.putArray("source_refs");
        sourceRefs.forEach(refs::add);
        o.put("generation", generation);
        return memoryEnd(o, cycleId, ts);
    }

    /** The deletion of a memory. */
    public static Payload memoryDeleted(String tenantId, String memoryId, String type, String cycleId, Instant ts) {
        ObjectNode o = base(PayloadKind.MEMORY, tenantId);
        o.put("memory_id", memoryId).put("type", type).put("op", "delete");
        return memoryEnd(o, cycleId, ts);
    }

    /** What an upsert and a delete of a memory both end with: the cycle, when there is one, and the time. */
    private static Payload memoryEnd(ObjectNode o, String cycleId, Instant ts) {
        if (cycleId != null) {
            o.put("cycle_id", cycleId);
        }
        o.put("ts", ts.toString());
        return of(PayloadKind.MEMORY, o);
    }

    /**
     * A request to forget a record ({@code memory}, by its store id), a session or a user; keyed by tenant, so it
     * follows the tenant's memories before it.
     */
    public static Payload forget(String tenantId, String forgetId, String scope, String target, Instant ts) {
        ObjectNode o = base(PayloadKind.FORGET, tenantId);
        o.put("forget_id", forgetId).put("scope", scope).put("target", target).put("ts", ts.toString());
        return of(PayloadKind.FORGET, o);
    }

    private static ObjectNode base(PayloadKind kind, String tenantId) {
        return JSON.createObjectNode().put("schema", kind.schema()).put("tenant_id", tenantId);
    }
}
