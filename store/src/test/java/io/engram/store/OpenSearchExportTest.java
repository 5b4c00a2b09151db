package io.engram.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedServicesExtension;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An export of 5,000 records of one tenant through a real OpenSearch node, page by page: every record once, oldest
 * first (then by id), none of another tenant's, and a stream resumed at a cursor line gives the rest.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class OpenSearchExportTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TENANT = "exporter";
    private static final int RECORDS = 5_000;

    /** Turns of 50 sessions, memories superseding the one before, summaries; ten records share each second. */
    private static List<MemoryRecord> records() {
        List<MemoryRecord> records = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            var ts = Records.T0.plusSeconds(i / 10);
            float[] vector = {1, i % 7, 0};
            MemoryRecord.Builder r = switch (i % 5) {
                case 0, 1, 2 -> MemoryRecord.of(RecordIds.turn(TENANT, "s" + i % 50, "t" + i), TENANT, RecordType.TURN,
                        "turn " + i, ts).session("s" + i % 50).user("u" + i % 4).role("user").position(i);
                case 3 -> MemoryRecord.of(RecordIds.memory(TENANT, "m" + i), TENANT, RecordType.MEMORY, "memory " + i, ts)
                        .user("u" + i % 4).supersedes(i >= 5 ? List.of(RecordIds.memory(TENANT, "m" + (i - 5))) : List.of());
                default -> MemoryRecord.of("sum-" + i, TENANT, RecordType.SUMMARY, "summary " + i, ts).session("s" + i % 50);
            };
            records.add(r.embedding(vector).tokens(2).build());
        }
        return records;
    }

    private static List<JsonNode> export(MemoryStore store, Map<String, Object> terms, String cursor) throws Exception {
        ExportLines.Pages pages = after -> store.list(TENANT, terms, Set.of(), MemoryReader.Order.OLDEST_FIRST,
                ExportLines.PAGE_SIZE, after);
        StringWriter out = new StringWriter();
        ExportLines.write(pages.after(cursor), pages, out);
        List<JsonNode> lines = new ArrayList<>();
        for (String line : out.toString().split("\n")) {
            lines.add(JSON.readTree(line));
        }
        return lines;
    }

    private static String idOf(JsonNode line) {
        return switch (line.get("schema").asText()) {
            case "turn.v1" -> RecordIds.turn(TENANT, line.get("session_id").asText(), line.get("turn_id").asText());
            case "memory.v1" -> RecordIds.memory(TENANT, line.get("memory_id").asText());
            default -> line.get("record_id").asText();
        };
    }

    @Test
    void everyRecordOfTheTenantOnceOldestFirstAndAResumedStreamGivesTheRest(EmbeddedOpenSearch openSearch) throws Exception {
        try (MemoryStore store = OpenSearchMemoryStore.at(openSearch.httpUrl(), "engram-memories-export-test",
                RetryPolicy.DEFAULT).open()) {
            store.ensureIndex("test-vectors", 3);
            List<MemoryRecord> records = records();
            for (int from = 0; from < RECORDS; from += 1000) {
                store.upsert(records.subList(from, from + 1000));
            }
            store.upsert(List.of(MemoryRecord.of(RecordIds.memory("neighbour", "m"), "neighbour", RecordType.MEMORY,
                    "not theirs", Records.T0).embedding(new float[] {1, 0, 0}).tokens(2).build()));
            store.refresh();
            List<String> expected = records.stream().sorted(Comparator.comparing(MemoryRecord::ts)
                    .thenComparing(MemoryRecord::id)).map(MemoryRecord::id).toList();

            List<JsonNode> lines = export(store, Map.of(), null);
            List<JsonNode> cursors = lines.stream().filter(l -> l.get("schema").asText().equals("cursor.v1")).toList();
            List<String> exported = lines.stream().filter(l -> !l.get("schema").asText().equals("cursor.v1"))
                    .map(OpenSearchExportTest::idOf).toList();
            assertThat(exported).containsExactlyElementsOf(expected);
            assertThat(cursors).hasSize((RECORDS + ExportLines.PAGE_SIZE - 1) / ExportLines.PAGE_SIZE);
            assertThat(cursors.get(cursors.size() - 1).get("cursor").isNull()).isTrue();
            assertThat(cursors.get(cursors.size() - 1).get("records").asLong()).isEqualTo(RECORDS);
            assertThat(lines.stream().filter(l -> l.path("memory_id").asText().equals("m8")).findFirst().orElseThrow()
                    .get("supersedes").get(0).asText()).isEqualTo("m3");

            List<JsonNode> rest = export(store, Map.of(), cursors.get(3).get("cursor").asText());
            assertThat(rest.stream().filter(l -> !l.get("schema").asText().equals("cursor.v1")).map(OpenSearchExportTest::idOf)
                    .toList()).containsExactlyElementsOf(expected.subList(4 * ExportLines.PAGE_SIZE, RECORDS));

            List<JsonNode> oneUser = export(store, Map.of("user_id", "u1"), null);
            assertThat(oneUser.stream().filter(l -> !l.get("schema").asText().equals("cursor.v1")).toList())
                    .hasSize((int) records.stream().filter(r -> "u1".equals(r.userId())).count())
                    .allSatisfy(l -> assertThat(l.get("user_id").asText()).isEqualTo("u1"));
        }
    }
}
