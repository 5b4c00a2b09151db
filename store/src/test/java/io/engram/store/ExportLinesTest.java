package io.engram.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import java.io.StringWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each kind of record's export line, and the stream of pages with their cursor lines. */
class ExportLinesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant TS = Instant.parse("2026-11-01T10:00:00Z");

    private static Map<String, Object> fields(MemoryRecord r) {
        return JSON.convertValue(ExportLines.line(r), Map.class);
    }

    @Test
    void aTurnIsTheTurnPayloadThatWroteIt() {
        MemoryRecord turn = MemoryRecord.of(RecordIds.turn("acme", "s-1", "t-7"), "acme", RecordType.TURN, "hello", TS)
                .session("s-1").user("ann").role("user").position(7).tokens(1).build();
        assertThat(fields(turn)).containsExactlyInAnyOrderEntriesOf(Map.of("schema", "turn.v1", "tenant_id", "acme",
                "session_id", "s-1", "user_id", "ann", "turn_id", "t-7", "seq", 7L, "role", "user", "text", "hello",
                "ts", "2026-11-01T10:00:00Z"));
    }

    @Test
    void aMemoryIsAnUpsertWithItsFactsAndNamesWhatItSupersedesByMemoryId() {
        MemoryRecord memory = MemoryRecord.of(RecordIds.memory("acme", "m-2"), "acme", RecordType.LESSON, "lives in Oslo", TS)
                .provenance(List.of("m-0", "sum-abc"), 1).user("ann").agent("coder").key("home.city")
                .supersedes(List.of(RecordIds.memory("acme", "m-1"), "sum-old"))
                .supersededBy(RecordIds.memory("acme", "m-3"), TS.plusSeconds(9))
                .validity(TS.minusSeconds(60), TS.plusSeconds(3600)).expiresAt(TS.plusSeconds(7200)).build();
        Map<String, Object> line = fields(memory);
        assertThat(line).containsExactlyInAnyOrderEntriesOf(Map.ofEntries(Map.entry("schema", "memory.v1"),
                Map.entry("tenant_id", "acme"), Map.entry("memory_id", "m-2"), Map.entry("type", "lesson"),
                Map.entry("op", "upsert"), Map.entry("text", "lives in Oslo"),
                Map.entry("source_refs", List.of("m-0", "sum-abc")), Map.entry("generation", 1),
                Map.entry("user_id", "ann"), Map.entry("agent_id", "coder"), Map.entry("key", "home.city"),
                Map.entry("supersedes", List.of("m-1", "sum-old")), Map.entry("valid_from", "2026-11-01T09:59:00Z"),
                Map.entry("valid_until", "2026-11-01T11:00:00Z"), Map.entry("expires_at", "2026-11-01T12:00:00Z"),
                Map.entry("ts", "2026-11-01T10:00:00Z")));
        assertThat(line).doesNotContainKey("superseded_by");
    }

    @Test
    void aMemoryWithoutFactsCarriesOnlyWhatItHas() {
        MemoryRecord memory = MemoryRecord.of(RecordIds.memory("acme", "k-1"), "acme", RecordType.KNOWLEDGE, "a fact", TS).build();
        assertThat(fields(memory)).containsOnlyKeys("schema", "tenant_id", "memory_id", "type", "op", "text",
                "generation", "ts").containsEntry("type", "knowledge").containsEntry("generation", 0);
    }

    @Test
    void summariesWindowsAndChunksAreDerivedLines() {
        MemoryRecord summary = MemoryRecord.of("sum-1", "acme", RecordType.SUMMARY, "they talked", TS).session("s-1")
                .user("ann").provenance(List.of("t-1", "t-2"), 0).supersededBy("sum-2", TS).build();
        assertThat(fields(summary)).containsAllEntriesOf(Map.of("schema", "derived.v1", "derived", true,
                "tenant_id", "acme", "record_id", "sum-1", "type", "summary", "text", "they talked",
                "ts", "2026-11-01T10:00:00Z", "session_id", "s-1", "user_id", "ann", "source_refs", List.of("t-1", "t-2")))
                .hasSize(11).containsEntry("superseded_by", "sum-2");
        MemoryRecord chunk = Records.chunk("acme", "doc-1", RecordType.INVARIANT, 0, "AGENTS.md", 3, 4, "Never push.", null);
        assertThat(fields(chunk)).containsEntry("schema", "derived.v1").containsEntry("type", "invariant")
                .containsEntry("agent_id", "agent-1").containsEntry("doc_path", "AGENTS.md").containsEntry("doc_version", 3L)
                .containsEntry("position", 4).containsEntry("tier", 0).containsEntry("derived", true);
        MemoryRecord window = MemoryRecord.of("win-1", "acme", RecordType.WINDOW, "a: hi\nb: hello", TS).session("s-1").build();
        assertThat(fields(window)).containsEntry("schema", "derived.v1").containsEntry("type", "window");
        MemoryRecord lore = Records.chunk("acme", "doc-2", RecordType.LORE, 2, "AGENTS.md", 3, 5, "## Setup\nRun make.", null);
        assertThat(fields(lore)).containsEntry("schema", "derived.v1").containsEntry("type", "lore");
    }

    @Test
    void aRecordThatCannotBeItsPayloadIsRefusedNotGuessed() {
        MemoryRecord foreign = MemoryRecord.of("other/m-1", "acme", RecordType.MEMORY, "x", TS).build();
        assertThatThrownBy(() -> ExportLines.line(foreign)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("other/m-1");
        MemoryRecord turnWithoutRole = MemoryRecord.of(RecordIds.turn("acme", "s", "t"), "acme", RecordType.TURN, "x", TS)
                .session("s").position(0).build();
        assertThatThrownBy(() -> ExportLines.line(turnWithoutRole)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theStreamWritesEachPageThenItsCursorAndEndsWithTheCount() throws Exception {
        List<MemoryRecord> all = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            all.add(MemoryRecord.of(RecordIds.memory("acme", "m" + i), "acme", RecordType.MEMORY, "note " + i, TS).build());
        }
        List<String> asked = new ArrayList<>();
        ExportLines.Pages pages = cursor -> {
            asked.add(cursor);
            int from = Integer.parseInt(cursor);
            return new MemoryReader.Page(all.subList(from, Math.min(from + 2, all.size())), from + 2 < all.size()
                    ? String.valueOf(from + 2) : null);
        };
        StringWriter out = new StringWriter();
        long written = ExportLines.write(new MemoryReader.Page(all.subList(0, 2), "2"), pages, out);
        List<JsonNode> lines = new ArrayList<>();
        for (String line : out.toString().split("\n")) {
            lines.add(JSON.readTree(line));
        }
        assertThat(written).isEqualTo(5);
        assertThat(asked).containsExactly("2", "4");
        assertThat(lines).extracting(l -> l.path("memory_id").asText(l.path("cursor").asText("null")))
                .containsExactly("m0", "m1", "2", "m2", "m3", "4", "m4", "null");
        assertThat(lines.get(7).get("schema").asText()).isEqualTo("cursor.v1");
        assertThat(lines.get(7).get("cursor").isNull()).isTrue();
        assertThat(lines.get(7).get("records").asLong()).isEqualTo(5);
    }
}
