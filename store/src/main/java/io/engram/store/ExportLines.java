package io.engram.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import java.io.IOException;
import java.io.Writer;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * A tenant's export (docs/operations.md, "Export"): one JSON line per record in the published schemas, so an
 * import sends a line back through Kafka as it is. A turn is a {@code turn.v1} payload, a memory, lesson or
 * knowledge a {@code memory.v1} upsert with its facts; what the job derives (summaries, windows, document chunks)
 * is a {@code derived.v1} line, which an import skips because the job makes it again. After each page a
 * {@code cursor.v1} line names where the next page starts; the last line's cursor is null and counts the records.
 */
public final class ExportLines {

    /** The records one page of an export reads: what the writer holds in memory at once. */
    public static final int PAGE_SIZE = 500;

    /** The types whose lines are {@code memory.v1} payloads. */
    public static final Set<RecordType> MEMORY_TYPES = EnumSet.of(RecordType.MEMORY, RecordType.LESSON, RecordType.KNOWLEDGE);

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The page after a cursor (null for the first) of the records an export reads, oldest first. */
    @FunctionalInterface
    public interface Pages {
        MemoryReader.Page after(String cursor);
    }

    private ExportLines() {
    }

    /**
     * Writes {@code first} and every page after it, each page's lines then its cursor line, flushed, and the end
     * line; returns how many records it wrote. One page is held at a time.
     */
    public static long write(MemoryReader.Page first, Pages next, Writer out) throws IOException {
        long records = 0;
        MemoryReader.Page page = first;
        while (true) {
            for (MemoryRecord r : page.records()) {
                writeLine(line(r), out);
            }
            records += page.records().size();
            if (page.nextCursor() == null) {
                writeLine(JSON.createObjectNode().put("schema", "cursor.v1").putNull("cursor").put("records", records), out);
                out.flush();
                return records;
            }
            writeLine(JSON.createObjectNode().put("schema", "cursor.v1").put("cursor", page.nextCursor()), out);
            out.flush();
            page = next.after(page.nextCursor());
        }
    }

    private static void writeLine(ObjectNode line, Writer out) throws IOException {
        out.write(JSON.writeValueAsString(line));
        out.write('\n');
    }

    /** The export line of a record: its payload in the schema it was written in, or a derived record's line. */
    public static ObjectNode line(MemoryRecord r) {
        if (r.type() == RecordType.TURN) {
            return turn(r);
        }
        return MEMORY_TYPES.contains(r.type()) ? memory(r) : derived(r);
    }

    /** A turn as the {@code turn.v1} payload that wrote it: its turn id is its record id's tail, its seq its position. */
    static ObjectNode turn(MemoryRecord r) {
        String turnId = r.sessionId() == null ? null : RecordIds.turnIdOf(r.tenantId(), r.sessionId(), r.id()).orElse(null);
        if (turnId == null || r.position() == null || r.role() == null) {
            throw new IllegalStateException("turn " + r.id() + " lacks what turn.v1 needs (session, turn id, seq, role)");
        }
        ObjectNode line = JSON.createObjectNode().put("schema", "turn.v1").put("tenant_id", r.tenantId())
                .put("session_id", r.sessionId());
        optional(line, "user_id", r.userId());
        return line.put("turn_id", turnId).put("seq", r.position().longValue()).put("role", r.role())
                .put("text", r.text()).put("ts", r.ts().toString());
    }

    /**
     * A memory as a {@code memory.v1} upsert with its facts. What superseded it is left out: memory.v1 has no such
     * field, the job works it out again from {@code supersedes}. A superseded id of the tenant's is named by its
     * {@code memory_id}, as a gateway names it.
     */
    static ObjectNode memory(MemoryRecord r) {
        String memoryId = RecordIds.memoryIdOf(r.tenantId(), r.id())
                .orElseThrow(() -> new IllegalStateException("memory " + r.id() + " has no memory_id of its tenant"));
        ObjectNode line = JSON.createObjectNode().put("schema", "memory.v1").put("tenant_id", r.tenantId())
                .put("memory_id", memoryId).put("type", r.type().label()).put("op", "upsert").put("text", r.text());
        strings(line, "source_refs", r.sourceRefs());
        line.put("generation", r.generation());
        optional(line, "user_id", r.userId());
        optional(line, "agent_id", r.agentId());
        optional(line, "key", r.key());
        strings(line, "supersedes", r.supersedes().stream()
                .map(id -> RecordIds.memoryIdOf(r.tenantId(), id).orElse(id)).toList());
        optional(line, "valid_from", r.validFrom());
        optional(line, "valid_until", r.validUntil());
        optional(line, "expires_at", r.expiresAt());
        return line.put("ts", r.ts().toString());
    }

    /** A record the job derives ({@code derived.v1}): what it says and where it sits, for the reader of an export. */
    static ObjectNode derived(MemoryRecord r) {
        ObjectNode line = JSON.createObjectNode().put("schema", "derived.v1").put("derived", true)
                .put("tenant_id", r.tenantId()).put("record_id", r.id()).put("type", r.type().label())
                .put("text", r.text()).put("ts", r.ts().toString());
        optional(line, "session_id", r.sessionId());
        optional(line, "user_id", r.userId());
        optional(line, "agent_id", r.agentId());
        optional(line, "doc_path", r.docPath());
        if (r.docVersion() != null) {
            line.put("doc_version", r.docVersion());
        }
        if (r.position() != null) {
            line.put("position", r.position());
        }
        if (r.tier() != null) {
            line.put("tier", r.tier());
        }
        strings(line, "source_refs", r.sourceRefs());
        optional(line, "superseded_by", r.supersededBy());
        return line;
    }

    private static void optional(ObjectNode line, String field, Object value) {
        if (value != null) {
            line.put(field, value instanceof Instant at ? at.toString() : value.toString());
        }
    }

    private static void strings(ObjectNode line, String field, List<String> values) {
        if (!values.isEmpty()) {
            ArrayNode array = line.putArray(field);
            values.forEach(array::add);
        }
    }
}
