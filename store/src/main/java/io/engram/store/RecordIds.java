package io.engram.store;

import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * Deterministic OpenSearch ids, so a replay overwrites instead of duplicating. Every id is scoped to its tenant:
 * ids share one index, and two tenants' memories with the same name must not overwrite each other. Summary ids
 * ({@code sum-…}, {@link io.engram.model.compaction.SummaryId}) already hash the tenant in.
 */
public final class RecordIds {

    private RecordIds() {
    }

    public static String memory(String tenantId, String memoryId) {
        return tenantId + "/" + memoryId;
    }

    /** The gateway's own memory_id of a memory's store id, or empty when the id is not the tenant's. */
    public static Optional<String> memoryIdOf(String tenantId, String recordId) {
        String prefix = memory(tenantId, "");
        return recordId.startsWith(prefix) && recordId.length() > prefix.length()
                ? Optional.of(recordId.substring(prefix.length())) : Optional.empty();
    }

    public static String turn(String tenantId, String sessionId, String turnId) {
        return tenantId + "/" + sessionId + "/" + turnId;
    }

    /** The turn id within a session of a turn's record id, or empty when the id is no turn of that session. */
    public static Optional<String> turnIdOf(String tenantId, String sessionId, String recordId) {
        String prefix = turn(tenantId, sessionId, "");
        return recordId.startsWith(prefix) && recordId.length() > prefix.length()
                ? Optional.of(recordId.substring(prefix.length())) : Optional.empty();
    }

    /** A document chunk: {@code doc-} + 32 hex of sha256(tenant ‖ 0 ‖ agent ‖ 0 ‖ path ‖ 0 ‖ version ‖ 0 ‖ index). */
    public static String chunk(String tenantId, String agentId, String path, long version, int index) {
        String key = tenantId + '\0' + agentId + '\0' + path + '\0' + version + '\0' + index;
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return "doc-" + HexFormat.of().formatHex(digest).substring(0, 32);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The record id a source ref names: gateways name their memories by {@code memory_id}, our summaries name
     * summaries by id; both resolve to the id in the index.
     */
    public static String resolveRef(String tenantId, String ref) {
        return ref.startsWith("sum-") || ref.startsWith(tenantId + "/") ? ref : memory(tenantId, ref);
    }

    /**
     * The ids of the records a record's source refs name (what the console follows as provenance): a summary's or a window's
     * refs are turns of its own session and the summaries it merged; any other record's are resolved as
     * {@link #resolveRef} resolves them.
     */
    public static List<String> sourceIds(MemoryRecord r) {
        return r.sourceRefs().stream().map(ref -> (r.type() == RecordType.SUMMARY || r.type() == RecordType.WINDOW)
                && r.sessionId() != null && !ref.startsWith("sum-") ? turn(r.tenantId(), r.sessionId(), ref)
                : resolveRef(r.tenantId(), ref)).toList();
    }
}
