package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.store.MemoryStore;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RecordIds;
import io.engram.store.RetryPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./engram export} over a real OpenSearch node: a tenant's lines to a file or standard output, narrowed by user. */
@ExtendWith(EmbeddedServicesExtension.class)
class ExportCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String INDEX = "engram-memories-export-command-test";
    private static final Instant T0 = Instant.parse("2026-11-01T10:00:00Z");

    private static void plant(String url) {
        try (MemoryStore store = OpenSearchMemoryStore.at(url, INDEX, RetryPolicy.DEFAULT).open()) {
            store.ensureIndex("test-vectors", 2);
            store.upsert(List.of(
                    MemoryRecord.of(RecordIds.turn("acme", "s1", "t1"), "acme", RecordType.TURN, "I moved to Oslo", T0)
                            .session("s1").user("ann").role("user").position(1).embedding(new float[] {1, 0}).build(),
                    MemoryRecord.of(RecordIds.memory("acme", "city"), "acme", RecordType.MEMORY, "Ann lives in Oslo",
                            T0.plusSeconds(1)).user("ann").key("user.city").embedding(new float[] {1, 0}).build(),
                    MemoryRecord.of(RecordIds.memory("acme", "pet"), "acme", RecordType.MEMORY, "Bob has a cat",
                            T0.plusSeconds(2)).user("bob").embedding(new float[] {0, 1}).build(),
                    MemoryRecord.of(RecordIds.memory("globex", "x"), "globex", RecordType.MEMORY, "not acme's",
                            T0).embedding(new float[] {0, 1}).build()));
            store.refresh();
        }
    }

    private static List<JsonNode> parse(String text) throws Exception {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : text.split("\n")) {
            lines.add(JSON.readTree(line));
        }
        return lines;
    }

    @Test
    void writesTheTenantsLinesOldestFirstToAFileOrNarrowedByUserToStandardOutput(EmbeddedOpenSearch openSearch,
                                                                                  @TempDir Path dir) throws Exception {
        plant(openSearch.httpUrl());
        Path file = dir.resolve("acme.jsonl");
        CliRun all = CliRun.of("export", "--tenant", "acme", "--opensearch", openSearch.httpUrl(), "--index", INDEX,
                "--out", file.toString());
        assertThat(all.exit()).as(all.err()).isZero();
        assertThat(all.err()).contains("engram export: 3 records of acme to " + file);
        List<JsonNode> lines = parse(Files.readString(file));
        assertThat(lines).extracting(l -> l.get("schema").asText() + " " + l.path("turn_id").asText(l.path("memory_id")
                .asText())).containsExactly("turn.v1 t1", "memory.v1 city", "memory.v1 pet", "cursor.v1 ");
        assertThat(lines.get(1).get("key").asText()).isEqualTo("user.city");
        assertThat(lines.get(3).get("records").asLong()).isEqualTo(3);

        CliRun ann = CliRun.of("export", "--tenant", "acme", "--user", "ann", "--opensearch", openSearch.httpUrl(),
                "--index", INDEX);
        assertThat(ann.exit()).as(ann.err()).isZero();
        assertThat(parse(ann.out())).extracting(l -> l.path("user_id").asText("end")).containsExactly("ann", "ann", "end");
    }

    @Test
    void anInvalidTenantIsALineNamingTheOption() {
        CliRun run = CliRun.of("export", "--tenant", "Not A Tenant", "--opensearch", "http://127.0.0.1:1");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err().strip()).isEqualTo("engram export: --tenant: invalid tenant id: Not A Tenant");
    }
}
