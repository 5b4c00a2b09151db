package io.engram.jobs.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.engram.jobs.compaction.TurnEvent;
import io.engram.jobs.documents.DocEvent;
import io.engram.jobs.store.StoreChange;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.RecordIds;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/** The typed events of validated payloads (fields as in docs/schemas). */
public final class Payloads {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Payloads() {
    }

    public static TurnEvent turn(Ingested in) {
        JsonNode o = parse(in);
        return new TurnEvent(in.tenantId(), o.get("session_id").asText(), text(o, "user_id"), o.get("turn_id").asText(),
                o.get("seq").asLong(), o.get("role").asText(), o.get("text").asText(), in.tsMillis());
    }

    /** The turn as a store record (searchable at once; compaction adds summaries over it later). */
    public static StoreChange turnRecord(TurnEvent t) {
        return new StoreChange.Upsert(MemoryRecord.of(RecordIds.turn(t.tenantId(), t.sessionId(), t.turnId()), t.tenantId(),
                RecordType.TURN, t.text(), Instant.ofEpochMilli(t.tsMillis())).session(t.sessionId()).user(t.userId())
                .role(t.role()).position((int) Math.min(Integer.MAX_VALUE, t.seq())).build(), null);
    }

    public static DocEvent doc(Ingested in) {
        JsonNode o = parse(in);
        return new DocEvent(in.tenantId(), o.get("agent_id").asText(), o.get("path").asText(),
                o.get("doc_class").asText(), o.get("version").asLong(), o.get("content").asText(),
                o.path("deleted").asBoolean(false), in.tsMillis(), in.sourceTopic(), in.partition(), in.offset(),
                in.original());
    }

    /** A gateway memory as a store change, in the gateway's cycle if it names one. */
    public static StoreChange memory(Ingested in) {
        JsonNode o = parse(in);
        RecordType type = RecordType.ofLabel(o.get("type").asText());
        String id = RecordIds.memory(in.tenantId(), o.get("memory_id").asText());
        String cycle = text(o, "cycle_id");
        if ("delete".equals(o.get("op").asText())) {
            return new StoreChange.Delete(in.tenantId(), id, type, null, in.tsMillis(), cycle);
        }
        List<String> refs = new ArrayList<>();
        o.path("source_refs").forEach(r -> refs.add(r.asText()));
        List<String> supersedes = new ArrayList<>();
        o.path("supersedes").forEach(r -> supersedes.add(RecordIds.resolveRef(in.tenantId(), r.asText())));
        return new StoreChange.Upsert(MemoryRecord.of(id, in.tenantId(), type, o.get("text").asText(),
                Instant.ofEpochMilli(in.tsMillis())).provenance(refs, o.path("generation").asInt(0)).user(text(o, "user_id"))
                .agent(text(o, "agent_id")).key(text(o, "key")).supersedes(supersedes).validity(date(o, "valid_from"), date(o, "valid_until"))
                .expiresAt(date(o, "expires_at")).build(), cycle);
    }

    /** A date-time field the validator accepted, or null when absent. */
    private static Instant date(JsonNode o, String field) {
        return o.hasNonNull(field) ? OffsetDateTime.parse(o.get(field).asText()).toInstant() : null;
    }

    public static ForgetEvent forget(Ingested in) {
        JsonNode o = parse(in);
        return new ForgetEvent(in.tenantId(), o.get("forget_id").asText(), ForgetScope.ofLabel(o.get("scope").asText()),
                o.get("target").asText(), in.tsMillis());
    }

    private static String text(JsonNode o, String field) {
        return o.hasNonNull(field) ? o.get(field).asText() : null;
    }

    private static JsonNode parse(Ingested in) {
        try {
            return JSON.readTree(in.payloadJson());
        } catch (IOException e) {
            throw new UncheckedIOException("validated payload no longer parses", e);
        }
    }
}
