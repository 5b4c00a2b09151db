package io.engram.service;

import static io.engram.service.ServiceHarness.ACME;
import static io.engram.service.ServiceHarness.OPERATOR;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.model.collapse.CycleMetrics;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.model.retrieval.TurnWindows;
import io.engram.service.ServiceHarness.Answer;
import io.engram.store.RecordIds;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** What each endpoint answers when it succeeds, through real HTTP over in-memory backends. */
class HttpAnswersTest {

    @AutoClose
    private ServiceHarness api = new ServiceHarness();

    private static List<String> texts(JsonNode items, String field) {
        List<String> values = new ArrayList<>();
        items.forEach(i -> values.add(i.get(field).asText()));
        return values;
    }

    @Test
    void aWriteIsAcceptedWithTheStoreIdsAndTheContractsDefaults() throws Exception {
        Answer written = api.call("POST", "/v1/memories", ACME, "{\"records\": [{\"text\": \"Ann likes tea.\"},"
                + " {\"type\": \"diary\", \"text\": \"x\"}, {\"memory_id\": \"m-2\", \"type\": \"lesson\", \"text\": \"Ask before booking.\"}]}");
        assertThat(written.status()).isEqualTo(202);
        assertThat(written.body().get("accepted")).hasSize(2);
        assertThat(written.body().get("accepted").get(0).asText()).matches("acme/m-[0-9a-f]{32}");
        assertThat(written.body().get("accepted").get(1).asText()).isEqualTo("acme/m-2");
        assertThat(written.body().at("/rejected/0/index").asInt()).isEqualTo(1);
        JsonNode first = api.backends.published.get(0).json();
        assertThat(first.get("schema").asText()).isEqualTo("memory.v1");
        assertThat(first.get("tenant_id").asText()).isEqualTo("acme");
        assertThat(first.get("op").asText()).isEqualTo("upsert");
        assertThat(first.get("type").asText()).isEqualTo("memory");
        assertThat(first.get("ts").asText()).isEqualTo(InMemoryBackends.NOW.toString());
        // the same text is the same memory
        assertThat(api.call("POST", "/v1/memories", ACME, "{\"text\": \"Ann likes tea.\"}").body().get("accepted"))
                .isEqualTo(ResponsesJson.JSON.createArrayNode().add(written.body().get("accepted").get(0)));
    }

    @Test
    void listingsPageNewestFirstAndSearchAndContextFindTheTenantsRecords() throws Exception {
        for (int i = 0; i < 3; i++) {
            api.call("POST", "/v1/memories", ACME, "{\"memory_id\": \"m-" + i + "\", \"ts\": \"2025-01-0" + (i + 1)
                    + "T00:00:00Z\", \"text\": \"Tea note " + i + ".\"}");
        }
        api.call("POST", "/v1/memories", ServiceHarness.GLOBEX, "{\"text\": \"Tea at globex.\"}");
        Answer page = api.call("GET", "/v1/memories?limit=2", ACME, null);
        assertThat(texts(page.body().get("records"), "id")).containsExactly("acme/m-2", "acme/m-1");
        Answer next = api.call("GET", "/v1/memories?limit=2&cursor=" + page.body().get("next_cursor").asText(), ACME, null);
        assertThat(texts(next.body().get("records"), "id")).containsExactly("acme/m-0");
        assertThat(next.body().get("next_cursor").isNull()).isTrue();

        Answer search = api.call("POST", "/v1/search", ACME, "{\"query\": \"tea\", \"k\": 2}");
        assertThat(texts(search.body().get("results"), "id")).containsExactly("acme/m-2", "acme/m-1");
        assertThat(search.raw().headers().firstValue("Server-Timing")).isPresent();
        Answer context = api.call("POST", "/v1/context", ACME, "{\"query\": \"tea\", \"budget_tokens\": 10}");
        assertThat(texts(context.body().get("included"), "id")).containsExactly("acme/m-2", "acme/m-1");
        assertThat(context.body().get("prompt").asText()).contains("3 Jan 2025:\n- Tea note 2. [acme/m-2]\n");
    }

    @Test
    void entitiesAreTheNamesATenantsRecordsMentionByUserSessionOrName() throws Exception {
        api.backends.reads.put(MemoryRecord.of(RecordIds.turn("acme", "s1", "t-0"), "acme", RecordType.TURN,
                "Ann: I moved to Oslo with Bruno.", InMemoryBackends.NOW).session("s1").user("ann").role("user").tokens(9).build());
        api.backends.reads.put(MemoryRecord.of(RecordIds.turn("acme", "s2", "t-0"), "acme", RecordType.TURN,
                "How does Bruno like Oslo?", InMemoryBackends.NOW.plusSeconds(1)).session("s2").user("ann").role("assistant")
                .tokens(7).build());
        api.backends.reads.put(MemoryRecord.of(RecordIds.memory("acme", "m-1"), "acme", RecordType.MEMORY,
                "Carla works at Google.", InMemoryBackends.NOW).user("carla").tokens(6).build());
        api.call("POST", "/v1/memories", ServiceHarness.GLOBEX, "{\"text\": \"Bruno visits Oslo.\"}");

        JsonNode all = api.call("GET", "/v1/entities", ACME, null).body().get("entities");
        assertThat(texts(all, "name")).containsExactly("bruno", "oslo", "carla", "google");
        assertThat(all.get(0).get("records").asLong()).isEqualTo(2);
        assertThat(texts(all.get(0).get("co_mentions"), "name")).containsExactly("oslo");
        assertThat(texts(all.get(0).get("mentioned_by"), "id")).as("newest first")
                .containsExactly("acme/s2/t-0", "acme/s1/t-0");
        assertThat(texts(api.call("GET", "/v1/entities?user_id=carla", ACME, null).body().get("entities"), "name"))
                .containsExactly("carla", "google");
        assertThat(texts(api.call("GET", "/v1/entities?session_id=s2&limit=1", ACME, null).body().get("entities"), "name"))
                .containsExactly("bruno");
        assertThat(texts(api.call("GET", "/v1/entities?name=Google", ACME, null).body().get("entities"), "name"))
                .as("the records naming Google, and what they name beside it").containsExactly("carla", "google");
        Answer refused = api.call("GET", "/v1/entities?limit=0", ACME, null);
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.message()).isEqualTo("limit must be an integer from 1 to 100");
    }

    @Test
    void windowsOfTurnsAreListedAndSearchedOnlyWhenAskedForByType() throws Exception {
        api.backends.reads.put(MemoryRecord.of(RecordIds.turn("acme", "s1", "t-0"), "acme", RecordType.TURN,
                "Tea in Oslo.", InMemoryBackends.NOW).session("s1").role("user").tokens(4).build());
        api.backends.reads.put(MemoryRecord.of(TurnWindows.id("acme", "s1", "t-0", "t-0"), "acme", RecordType.WINDOW,
                "user: Tea in Oslo.", InMemoryBackends.NOW).session("s1").provenance(List.of("t-0"), 0).tokens(5).build());
        assertThat(texts(api.call("GET", "/v1/memories?session_id=s1", ACME, null).body().get("records"), "type"))
                .containsExactly("turn");
        assertThat(texts(api.call("GET", "/v1/memories?session_id=s1&type=window", ACME, null).body().get("records"), "type"))
                .containsExactly("window");
        assertThat(texts(api.call("POST", "/v1/search", ACME, "{\"query\": \"tea oslo\"}").body().get("results"), "type"))
                .containsExactly("turn");
        assertThat(texts(api.call("POST", "/v1/search", ACME, "{\"query\": \"tea oslo\", \"types\": [\"window\"]}")
                .body().get("results"), "type")).containsExactly("window");
    }

    @Test
    void healthRejectsAndTenantsShowTheTenantsOwnRows() throws Exception {
        api.backends.cycles.put("acme", List.of(cycle("c-1", List.of()), cycle("c-2", List.of("recall_drop"))));
        api.backends.cycles.put("globex", List.of(cycle("c-9", List.of())));
        JsonNode health = api.call("GET", "/v1/health?limit=1", ACME, null).body();
        assertThat(texts(health.get("cycles"), "cycle_id")).containsExactly("c-2");
        assertThat(health.at("/cycles/0/alerts/0").asText()).isEqualTo("recall_drop");
        assertThat(health.at("/settings/window").asInt()).isPositive();

        for (int i = 0; i < 3; i++) {
            api.backends.rejects.add(reject(i, "acme", "schema_violation"));
        }
        api.backends.rejects.add(reject(3, "globex", "schema_violation"));
        api.backends.rejects.add(reject(4, "acme", "invalid_json"));
        api.backends.rejects.add(new RejectSource.Received(5, "not json".getBytes(StandardCharsets.UTF_8)));
        JsonNode rejects = api.call("GET", "/v1/rejects?limit=2", ACME, null).body();
        assertThat(texts(rejects.get("rejects"), "message")).containsExactly("reject 4", "reject 2", "reject 1");
        assertThat(rejects.at("/rejects/0/rejected_at").asText()).isEqualTo(Instant.ofEpochMilli(4).toString());

        assertThat(api.call("GET", "/v1/tenants", ACME, null).body().toString())
                .isEqualTo("{\"tenants\":[\"acme\"],\"operator\":false,\"next_after\":null}");
        assertThat(api.call("GET", "/v1/tenants", OPERATOR, null).body().toString())
                .isEqualTo("{\"tenants\":[\"acme\",\"globex\"],\"operator\":true,\"next_after\":null}");
        assertThat(api.call("GET", "/v1/tenants?limit=1", OPERATOR, null).body().toString())
                .isEqualTo("{\"tenants\":[\"acme\"],\"operator\":true,\"next_after\":\"acme\"}");
        assertThat(api.call("GET", "/v1/tenants?limit=1&after=acme", OPERATOR, null).body().toString())
                .isEqualTo("{\"tenants\":[\"globex\"],\"operator\":true,\"next_after\":null}");
        assertThat(api.call("GET", "/v1/tenants?limit=1001", OPERATOR, null).status()).isEqualTo(400);
    }

    @Test
    void theOperationsEndpointsAndTheConsoleNeedNoKey() throws Exception {
        assertThat(api.call("GET", "/healthz", null, null).body().get("status").asText()).isEqualTo("ok");
        Answer ready = api.call("GET", "/readyz", null, null);
        assertThat(ready.status()).isEqualTo(200);
        assertThat(ready.body().toString()).isEqualTo("{\"status\":\"ready\",\"checks\":{\"opensearch\":\"ok\",\"postgres\":\"ok\"}}");
        assertThat(api.call("GET", "/openapi.json", null, null).body()).isEqualTo(OpenApi.document());
        Answer console = api.call("GET", "/console/", null, null);
        assertThat(console.raw().headers().firstValue("Content-Security-Policy")).hasValue("default-src 'self'; frame-ancestors 'none'");
        assertThat(console.raw().body()).contains("<title>Engram console</title>");
        assertThat(api.call("GET", "/metrics", null, null).raw().body())
                .contains("engram_service_requests_total{route=\"GET /console/\",status=\"200\"} 1",
                        "engram_service_cached_rules 0\n", "engram_service_cached_rule_tenants 0\n");
    }

    private static CycleMetrics cycle(String id, List<String> alerts) {
        return new CycleMetrics("t", id, Instant.parse("2025-01-01T00:00:00Z"), "count", "canaries", 1, 1, 1, 1,
                List.of(), 10, Map.of(), 1, 1, 0, 1, 0, 0, alerts);
    }

    private static RejectSource.Received reject(long at, String tenant, String reason) {
        String json = "{\"tenant_id\": \"" + tenant + "\", \"reason_code\": \"" + reason + "\", \"message\": \"reject " + at
                + "\"}";
        return new RejectSource.Received(at, json.getBytes(StandardCharsets.UTF_8));
    }
}
