package io.engram.jobs.changes;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.jobs.store.StoreChange;
import io.engram.jobs.store.StoreChange.Delete;
import io.engram.jobs.store.StoreChange.DocumentVersion;
import io.engram.jobs.store.StoreChange.Forget;
import io.engram.jobs.store.StoreChange.Supersede;
import io.engram.jobs.store.StoreChange.Sweep;
import io.engram.jobs.store.StoreChange.Upsert;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.RecordIds;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * What the change feed publishes (docs/schemas/change.v1.json) and how: which store changes are a tenant's, and
 * each one's {@code change.v1} message. Windows, document chunks and merge signals are the job's own bookkeeping:
 * a document's chunks are told as one {@code document_accepted}. A forget never carries a text, nor how many records
 * it removed: a replay after a restore finds them removed already.
 */
public final class ChangeMessages {

    /** The record types whose writes and deletes are published: what gateways wrote, and summaries (derived). */
    static final Set<RecordType> PUBLISHED_TYPES = EnumSet.of(RecordType.TURN, RecordType.SUMMARY, RecordType.MEMORY,
            RecordType.LESSON, RecordType.KNOWLEDGE);
    private static final String EXPIRY = "expiry/";
    private static final ObjectMapper JSON = new ObjectMapper();

    private ChangeMessages() {
    }

    /**
     * Whether a change the writer applied is published. A superseded mark is published only by the writer, which
     * knows whether its memory is stored.
     */
    public static boolean published(StoreChange change) {
        if (change instanceof Upsert u) {
            return PUBLISHED_TYPES.contains(u.record().type());
        }
        if (change instanceof Delete d) {
            return PUBLISHED_TYPES.contains(d.type());
        }
        return change instanceof Forget || change instanceof Sweep || change instanceof DocumentVersion;
    }

    /** The {@code change.v1} message of a published change: its {@code change_id} hashes every other field. */
    public static byte[] json(StoreChange change) {
        ObjectNode body = JSON.createObjectNode();
        body.put("tenant_id", change.tenantId());
        body.put("ts", Instant.ofEpochMilli(change.tsMillis()).toString());
        if (change instanceof Upsert u) {
            body.put("kind", "upserted");
            body.set("record", record(u.record()));
        } else if (change instanceof Delete d) {
            body.put("kind", "deleted");
            body.put("record_id", d.id());
            body.put("record_type", d.type().label());
        } else if (change instanceof Supersede s) {
            body.put("kind", s.by() == null ? "reinstated" : "superseded");
            body.put("record_id", s.id());
            if (s.by() != null) {
                body.put("superseded_by", s.by());
                body.put("superseded_at", Instant.ofEpochMilli(s.atMillis()).toString());
            }
        } else if (change instanceof Forget f) {
            forget(body, f);
        } else if (change instanceof Sweep s) {
            body.put("kind", "expired");
            body.put("record_type", s.type().label());
            forget(body, s.forgetId(), "retention", s.type().label());
        } else if (change instanceof DocumentVersion v) {
            body.put("kind", v.deleted() ? "document_deleted" : "document_accepted");
            body.putObject("document").put("agent_id", v.agentId()).put("path", v.docPath())
                    .put("version", v.version()).put("chunks", v.chunks());
        } else {
            throw new IllegalArgumentException("not a published change: " + change);
        }
        ObjectNode message = JSON.createObjectNode().put("schema", "change.v1").put("change_id", idOf(body));
        message.setAll(body);
        return message.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void forget(ObjectNode body, Forget f) {
        boolean expiry = f.forgetId().startsWith(EXPIRY);
        body.put("kind", expiry ? "expired" : "forgotten");
        if (expiry) {
            body.put("record_id", f.target());
        }
        forget(body, f.forgetId(), f.scope().label(), f.target());
    }

    private static void forget(ObjectNode body, String forgetId, String scope, String target) {
        body.putObject("forget").put("forget_id", forgetId).put("scope", scope).put("target", target);
    }

    /** A record as stored, without its vector, its ids as the gateway named them. */
    private static ObjectNode record(MemoryRecord r) {
        ObjectNode node = JSON.createObjectNode().put("id", r.id()).put("type", r.type().label())
                .put("derived", r.type() == RecordType.SUMMARY).put("text", r.text()).put("ts", r.ts().toString());
        if (r.type() == RecordType.TURN && r.sessionId() != null) {
            RecordIds.turnIdOf(r.tenantId(), r.sessionId(), r.id()).ifPresent(id -> node.put("turn_id", id));
        } else if (r.type() != RecordType.SUMMARY) {
            RecordIds.memoryIdOf(r.tenantId(), r.id()).ifPresent(id -> node.put("memory_id", id));
        }
        putIfPresent(node, "session_id", r.sessionId());
        putIfPresent(node, "user_id", r.userId());
        putIfPresent(node, "agent_id", r.agentId());
        putIfPresent(node, "role", r.role());
        putIfPresent(node, "key", r.key());
        putAll(node, "supersedes", r.supersedes());
        putIfPresent(node, "superseded_by", r.supersededBy());
        putIfPresent(node, "valid_from", r.validFrom());
        putIfPresent(node, "valid_until", r.validUntil());
        putIfPresent(node, "expires_at", r.expiresAt());
        putAll(node, "source_refs", r.sourceRefs());
        return node;
    }

    private static void putIfPresent(ObjectNode node, String field, Object value) {
        if (value != null) {
            node.put(field, value.toString());
        }
    }

    private static void putAll(ObjectNode node, String field, List<String> values) {
        if (!values.isEmpty()) {
            values.forEach(node.putArray(field)::add);
        }
    }

    private static String idOf(ObjectNode body) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(body.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
