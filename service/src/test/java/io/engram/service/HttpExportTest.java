package io.engram.service;

import static io.engram.service.ServiceHarness.ACME;
import static io.engram.service.ServiceHarness.ADMIN;
import static io.engram.service.ServiceHarness.OPERATOR;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.client.PayloadKind;
import io.engram.client.PayloadValidator;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.service.ServiceHarness.Answer;
import io.engram.store.ExportLines;
import io.engram.store.RecordIds;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /v1/export}: a tenant's records as JSON lines, streamed page by page with a cursor line after each;
 * narrowed by user, resumed at a cursor, refused without the read scope or with a cursor it did not make.
 */
class HttpExportTest {

    private static final Instant T0 = Instant.parse("2026-11-01T10:00:00Z");
    /** Two pages and a half. */
    private static final int RECORDS = 2 * ExportLines.PAGE_SIZE + ExportLines.PAGE_SIZE / 2;

    @AutoClose
    private final ServiceHarness api = new ServiceHarness();

    /** Turns of ann and bob, memories of ann superseding the one before, summaries; stored newest first. */
    private List<String> plant(String tenant) {
        List<String> oldestFirst = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            String user = i % 2 == 0 ? "ann" : "bob";
            MemoryRecord r = switch (i % 3) {
                case 0 -> MemoryRecord.of(RecordIds.turn(tenant, "s-" + user, "t" + i), tenant, RecordType.TURN, "turn " + i,
                        T0.plusSeconds(i)).session("s-" + user).user(user).role("user").position(i).build();
                case 1 -> MemoryRecord.of(RecordIds.memory(tenant, "m" + i), tenant, RecordType.MEMORY, "memory " + i,
                        T0.plusSeconds(i)).user(user).key("k").supersedes(i > 3 ? List.of(RecordIds.memory(tenant,
                        "m" + (i - 3))) : List.of()).build();
                default -> MemoryRecord.of("sum-" + tenant + i, tenant, RecordType.SUMMARY, "summary " + i,
                        T0.plusSeconds(i)).session("s-" + user).user(user).build();
            };
            api.backends.reads.put(r);
            oldestFirst.add(r.id());
        }
        return oldestFirst;
    }

    /** The body's lines, each parsed. */
    private static List<JsonNode> lines(Answer answer) throws Exception {
        assertThat(answer.status()).as(answer.raw().body()).isEqualTo(200);
        assertThat(answer.raw().headers().firstValue("Content-Type")).hasValue("application/x-ndjson; charset=utf-8");
        List<JsonNode> lines = new ArrayList<>();
        for (String line : answer.raw().body().split("\n")) {
            lines.add(ResponsesJson.JSON.readTree(line));
        }
        return lines;
    }

    private static List<String> ids(List<JsonNode> lines, String tenant) {
        return lines.stream().filter(l -> !l.get("schema").asText().equals("cursor.v1")).map(l -> switch (l.get("schema").asText()) {
            case "turn.v1" -> RecordIds.turn(tenant, l.get("session_id").asText(), l.get("turn_id").asText());
            case "memory.v1" -> RecordIds.memory(tenant, l.get("memory_id").asText());
            default -> l.get("record_id").asText();
        }).toList();
    }

    private static List<JsonNode> cursors(List<JsonNode> lines) {
        return lines.stream().filter(l -> l.get("schema").asText().equals("cursor.v1")).toList();
    }

    @Test
    void everyRecordOfTheTenantOnceOldestFirstInPagesEachFollowedByItsCursor() throws Exception {
        List<String> acme = plant("acme");
        plant("globex");
        List<JsonNode> lines = lines(api.call("GET", "/v1/export", ACME, null));
        assertThat(ids(lines, "acme")).containsExactlyElementsOf(acme);
        assertThat(lines).hasSize(RECORDS + 3);
        assertThat(lines.get(ExportLines.PAGE_SIZE).get("schema").asText()).isEqualTo("cursor.v1");
        assertThat(lines.get(ExportLines.PAGE_SIZE).get("cursor").asText()).isNotEmpty();
        JsonNode end = lines.get(lines.size() - 1);
        assertThat(end.get("cursor").isNull()).isTrue();
        assertThat(end.get("records").asLong()).isEqualTo(RECORDS);
    }

    @Test
    void turnAndMemoryLinesAreValidPayloadsAndTheRestAreDerived() throws Exception {
        plant("acme");
        PayloadValidator validator = new PayloadValidator(PayloadValidator.Limits.DEFAULT);
        for (JsonNode line : lines(api.call("GET", "/v1/export", ACME, null))) {
            byte[] bytes = ResponsesJson.JSON.writeValueAsBytes(line);
            switch (line.get("schema").asText()) {
                case "turn.v1" -> assertThat(validator.validate(bytes, PayloadKind.TURN))
                        .as(new String(bytes, StandardCharsets.UTF_8)).isInstanceOf(PayloadValidator.Valid.class);
                case "memory.v1" -> assertThat(validator.validate(bytes, PayloadKind.MEMORY))
                        .as(new String(bytes, StandardCharsets.UTF_8)).isInstanceOf(PayloadValidator.Valid.class);
                case "derived.v1" -> assertThat(line.get("derived").asBoolean()).isTrue();
                default -> assertThat(line.get("schema").asText()).isEqualTo("cursor.v1");
            }
        }
    }

    @Test
    void aStreamResumedAtACursorLineGivesTheRecordsAfterIt() throws Exception {
        List<String> acme = plant("acme");
        String cursor = cursors(lines(api.call("GET", "/v1/export", ACME, null))).get(1).get("cursor").asText();
        List<JsonNode> rest = lines(api.call("GET", "/v1/export?cursor=" + cursor, ACME, null));
        assertThat(ids(rest, "acme")).containsExactlyElementsOf(acme.subList(2 * ExportLines.PAGE_SIZE, RECORDS));
        assertThat(rest.get(rest.size() - 1).get("records").asLong()).isEqualTo(RECORDS - 2 * ExportLines.PAGE_SIZE);
    }

    @Test
    void anExportNarrowedByUserAndTypesHoldsOnlyTheirs() throws Exception {
        plant("acme");
        List<JsonNode> ann = lines(api.call("GET", "/v1/export?user_id=ann", ACME, null));
        assertThat(ann).hasSize(RECORDS / 2 + 2).filteredOn(l -> !l.get("schema").asText().equals("cursor.v1"))
                .allSatisfy(l -> assertThat(l.get("user_id").asText()).isEqualTo("ann"));
        List<JsonNode> memories = lines(api.call("GET", "/v1/export?user_id=ann&types=memory,turn", ACME, null));
        assertThat(memories).filteredOn(l -> !l.get("schema").asText().equals("cursor.v1"))
                .extracting(l -> l.get("schema").asText()).containsOnly("memory.v1", "turn.v1")
                .hasSize((int) IntStream.range(0, RECORDS).filter(i -> i % 2 == 0 && i % 3 != 2).count());
    }

    @Test
    void anOperatorExportsTheTenantItNames() throws Exception {
        List<String> globex = plant("globex");
        assertThat(ids(lines(api.call("GET", "/v1/export", OPERATOR, "globex", null)), "globex"))
                .containsExactlyElementsOf(globex);
    }

    @Test
    void aKeyWithoutTheReadScopeABadCursorOrAnUnknownTypeIsRefusedBeforeAnythingIsSent() throws Exception {
        plant("acme");
        assertThat(api.call("POST", "/v1/admin/tenants", ADMIN, "{\"tenant_id\": \"initech\"}").status()).isEqualTo(201);
        Answer made = api.call("POST", "/v1/keys", ADMIN, "initech", "{\"name\": \"w\", \"scopes\": [\"write\"]}");
        Answer writer = api.call("GET", "/v1/export", made.body().get("secret").asText(), null);
        assertThat(writer.status()).isEqualTo(403);
        assertThat(writer.code()).isEqualTo("insufficient_scope");
        Answer badCursor = api.call("GET", "/v1/export?cursor=not-a-cursor", ACME, null);
        assertThat(badCursor.status()).isEqualTo(400);
        assertThat(badCursor.code()).isEqualTo("invalid_request");
        Answer badType = api.call("GET", "/v1/export?types=memory,diary", ACME, null);
        assertThat(badType.status()).isEqualTo(400);
        assertThat(badType.message()).isEqualTo("unknown record type: diary");
        assertThat(api.call("GET", "/v1/export", null, null).status()).isEqualTo(401);
    }
}
