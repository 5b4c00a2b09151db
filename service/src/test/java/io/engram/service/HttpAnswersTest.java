package io.engram.service;

import static io.engram.service.ServiceHarness.ACME;
import static io.engram.service.ServiceHarness.OPERATOR;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.model.collapse.CycleMetrics;
import io.engram.service.ServiceHarness.Answer;
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
