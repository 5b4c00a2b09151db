package io.engram.service;

import static io.engram.service.ServiceHarness.ACME;
import static io.engram.service.ServiceHarness.ADMIN;
import static io.engram.service.ServiceHarness.GLOBEX;
import static io.engram.service.ServiceHarness.OPERATOR;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.service.ServiceHarness.Answer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Tenants, keys, quotas and usage through the HTTP API over in-memory backends: what the admin key makes, what
 * each scope allows, what a quota refuses, and usage that equals what was sent. The same against PostgreSQL, two
 * replicas and the live pipeline: {@code TenantsLiveTest} in the launcher.
 */
class TenantsAndKeysTest {

    @AutoClose
    private final ServiceHarness api = new ServiceHarness();

    private static void status(Answer answer, int status, String code) {
        assertThat(answer.status()).as("%s", answer.body()).isEqualTo(status);
        if (code != null) {
            assertThat(answer.code()).isEqualTo(code);
        }
    }

    private String tenant(String id, String quotas) throws Exception {
        Answer made = api.call("POST", "/v1/admin/tenants", ADMIN, "{\"tenant_id\": \"" + id + "\""
                + (quotas == null ? "" : ", \"quotas\": " + quotas) + "}");
        status(made, 201, null);
        Answer key = api.call("POST", "/v1/keys", ADMIN, id, "{\"name\": \"agent\", \"scopes\": [\"read\", \"write\","
                + " \"forget\", \"admin\"]}");
        status(key, 201, null);
        return key.body().get("secret").asText();
    }

    private String key(String adminKey, String scopes, String expiresAt) throws Exception {
        Answer made = api.call("POST", "/v1/keys", adminKey, "{\"name\": \"k\", \"scopes\": " + scopes
                + (expiresAt == null ? "" : ", \"expires_at\": \"" + expiresAt + "\"") + "}");
        status(made, 201, null);
        return made.body().get("secret").asText();
    }

    private static String memory(String text) {
        return "{\"text\": \"" + text + "\"}";
    }

    @Test
    void aTenantMadeByTheAdminKeyWritesAndReadsWithAKeyOfItsOwnAndItsKeysDoWhatTheirScopesSay() throws Exception {
        String initech = tenant("initech", null);
        status(api.call("POST", "/v1/memories", initech, memory("the stapler is red")), 202, null);
        assertThat(api.call("POST", "/v1/search", initech, "{\"query\": \"stapler\"}").body().at("/results/0/id").asText())
                .isEqualTo("initech/" + api.call("GET", "/v1/memories", initech, null).body()
                        .at("/records/0/id").asText().substring("initech/".length()));

        String reader = key(initech, "[\"read\"]", null);
        status(api.call("POST", "/v1/search", reader, "{\"query\": \"stapler\"}"), 200, null);
        status(api.call("POST", "/v1/memories", reader, memory("planted")), 403, "insufficient_scope");
        status(api.call("DELETE", "/v1/users/u1", reader, null), 403, "insufficient_scope");
        status(api.call("POST", "/v1/keys", reader, "{\"name\": \"more\"}"), 403, "insufficient_scope");
        String mcpRemember = "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/call\", \"params\": {\"name\":"
                + " \"remember\", \"arguments\": {\"text\": \"planted\"}}}";
        assertThat(api.call("POST", "/mcp", reader, mcpRemember).body().at("/result/content/0/text").asText())
                .startsWith("insufficient_scope: this API key may not write");
        assertThat(api.backends.published).hasSize(1);

        String writer = key(initech, "[\"write\"]", null);
        status(api.call("POST", "/v1/memories", writer, memory("the printer jams")), 202, null);
        status(api.call("POST", "/v1/search", writer, "{\"query\": \"printer\"}"), 403, "insufficient_scope");

        status(api.call("POST", "/v1/admin/tenants", initech, "{\"tenant_id\": \"other\"}"), 403, "forbidden");
        status(api.call("GET", "/v1/keys", initech, "acme", null), 403, "forbidden");
        status(api.call("POST", "/v1/admin/tenants", OPERATOR, "{\"tenant_id\": \"other\"}"), 403, "insufficient_scope");
        assertThat(api.call("GET", "/v1/keys", initech, null).body().get("keys")).extracting(k -> k.get("scopes").toString())
                .containsExactlyInAnyOrder("[\"read\",\"write\",\"forget\",\"admin\"]", "[\"read\"]", "[\"write\"]");
        assertThat(api.call("GET", "/v1/keys", initech, null).body().toString()).doesNotContain("secret", reader);
    }

    @Test
    void aRevokedARotatedAndAnExpiredKeyAreRefusedAtOnce() throws Exception {
        String admin = tenant("initech", null);
        String expired = key(admin, "[\"read\"]", InMemoryBackends.NOW.toString());
        String later = key(admin, "[\"read\"]", InMemoryBackends.NOW.plusSeconds(60).toString());
        status(api.call("GET", "/v1/memories", expired, null), 401, "unauthorized");
        status(api.call("GET", "/v1/memories", later, null), 200, null);

        JsonNode laterKey = null;
        for (JsonNode k : api.call("GET", "/v1/keys", admin, null).body().get("keys")) {
            if (k.get("expires_at").asText().equals(InMemoryBackends.NOW.plusSeconds(60).toString())) {
                laterKey = k;
            }
        }
        String laterId = laterKey.get("key_id").asText();
        Answer rotated = api.call("POST", "/v1/keys/" + laterId + "/rotate", admin, null);
        status(rotated, 201, null);
        assertThat(rotated.body().get("expires_at").asText()).as("kept").isEqualTo(laterKey.get("expires_at").asText());
        status(api.call("GET", "/v1/memories", later, null), 401, "unauthorized");
        String renewed = rotated.body().get("secret").asText();
        status(api.call("GET", "/v1/memories", renewed, null), 200, null);

        status(api.call("DELETE", "/v1/keys/" + rotated.body().get("key_id").asText(), admin, null), 204, null);
        status(api.call("GET", "/v1/memories", renewed, null), 401, "unauthorized");
        status(api.call("DELETE", "/v1/keys/" + laterId, admin, null), 404, "not_found");
    }

    @Test
    void aSuspendedTenantIsRefusedUntilResumedAndADeletedOneForGoodItsRecordsForgottenOnce() throws Exception {
        String initech = tenant("initech", null);
        status(api.call("PATCH", "/v1/admin/tenants/initech", ADMIN, "{\"status\": \"suspended\"}"), 200, null);
        status(api.call("GET", "/v1/memories", initech, null), 403, "tenant_suspended");
        status(api.call("PATCH", "/v1/admin/tenants/initech", ADMIN, "{\"status\": \"active\"}"), 200, null);
        status(api.call("GET", "/v1/memories", initech, null), 200, null);

        status(api.call("PATCH", "/v1/admin/tenants/acme", ADMIN, "{\"status\": \"suspended\"}"), 404, "not_found");
        Answer deleted = api.call("DELETE", "/v1/admin/tenants/acme", ADMIN, null);
        status(deleted, 202, null);
        assertThat(deleted.body().get("scope").asText()).isEqualTo("tenant");
        status(api.call("GET", "/v1/memories", ACME, null), 401, "unauthorized");
        Answer again = api.call("DELETE", "/v1/admin/tenants/acme", ADMIN, null);
        assertThat(again.body().get("forget_id")).as("a retried deletion sends the same forget").isEqualTo(
                deleted.body().get("forget_id"));
        assertThat(api.backends.published).extracting(p -> p.json().get("scope").asText() + " " + p.json().get("target")
                .asText() + " " + p.json().get("forget_id").asText()).containsOnly("tenant acme "
                + deleted.body().get("forget_id").asText());
        assertThat(api.backends.forgetsOf("acme")).containsExactly("tenant acme");
        status(api.call("GET", "/v1/memories", GLOBEX, null), 200, null);
        status(api.call("POST", "/v1/keys", ADMIN, "acme", "{\"name\": \"back\"}"), 409, "tenant_deleting");
        assertThat(api.call("GET", "/v1/admin/tenants", ADMIN, null).body().get("tenants"))
                .extracting(t -> t.get("tenant_id").asText() + " " + t.get("status").asText())
                .containsExactly("acme deleting", "initech active");
    }

    @Test
    void aWritePastAQuotaIsRefusedNamingItAndWhatWasAcceptedStays() throws Exception {
        String initech = tenant("initech", "{\"records\": 3, \"text_bytes_per_day\": 1000}");
        for (int i = 0; i < 3; i++) {
            status(api.call("POST", "/v1/memories", initech, memory("fact " + i)), 202, null);
        }
        Answer refused = api.call("POST", "/v1/memories", initech, memory("one too many"));
        status(refused, 403, "quota_exceeded");
        assertThat(refused.body().get("error").toString()).contains("\"quota\":\"records\"", "\"limit\":3", "\"usage\":3");
        assertThat(api.call("GET", "/v1/memories", initech, null).body().get("records")).hasSize(3);
        assertThat(api.call("GET", "/metrics", null, null).raw().body()).contains("engram_service_quota_refusals_total 1",
                "engram_service_auth_failures_total 0");

        status(api.call("PATCH", "/v1/admin/tenants/initech", ADMIN, "{\"quotas\": {\"records\": 100}}"), 200, null);
        String big = "x".repeat(990); // 18 bytes written today: 1,008 > 1,000
        Answer bytes = api.call("POST", "/v1/memories", initech, memory(big));
        status(bytes, 403, "quota_exceeded");
        assertThat(bytes.body().get("error").toString()).contains("\"quota\":\"text_bytes_per_day\"", "\"limit\":1000",
                "\"usage\":" + "fact 0fact 1fact 2".length());
        assertThat(api.call("GET", "/v1/admin/tenants/initech", ADMIN, null).body().get("quotas").toString())
                .isEqualTo("{\"records\":100,\"text_bytes_per_day\":1000,\"writes_per_second\":50.0,\"reads_per_second\":50.0}");
    }

    @Test
    void aRecordOnItsWayToTheIndexCountsAgainstTheQuotaOnceWhereverItIs() throws Exception {
        String initech = tenant("initech", "{\"records\": 3}");
        api.backends.holdIndex = true;
        for (int i = 0; i < 3; i++) {
            status(api.call("POST", "/v1/memories", initech, memory("in flight " + i)), 202, null);
        }
        Answer whileOnTheirWay = api.call("POST", "/v1/memories", initech, memory("one too many"));
        status(whileOnTheirWay, 403, "quota_exceeded");
        assertThat(whileOnTheirWay.body().get("error").toString()).as("none indexed yet: all three counted as on their way")
                .contains("\"usage\":3");
        assertThat(api.call("GET", "/v1/memories", initech, null).body().get("records")).isEmpty();

        api.backends.indexHeld();
        Answer once = api.call("POST", "/v1/memories", initech, memory("one too many"));
        assertThat(once.body().get("error").toString()).as("indexed now, and not counted again as on their way")
                .contains("\"usage\":3");
        status(api.call("POST", "/v1/memories", initech, memory("in flight 0")), 403, "quota_exceeded");
        assertThat(api.call("GET", "/v1/memories", initech, null).body().get("records")).hasSize(3);
    }

    @Test
    void usageIsWhatWasSentExactly() throws Exception {
        List<String> texts = new ArrayList<>(List.of("café au lait", "the key is under the mat", "ünïcödé"));
        status(api.call("POST", "/v1/memories", ACME, "{\"records\": [" + String.join(", ", texts.stream()
                .map(TenantsAndKeysTest::memory).toList()) + "]}"), 202, null);
        status(api.call("POST", "/v1/memories", ACME, "{\"text\": 7}"), 400, null); // rejected: not counted
        status(api.call("POST", "/v1/context", ACME, "{\"query\": \"mat\", \"budget_tokens\": 100}"), 200, null);
        status(api.call("POST", "/v1/search", ACME, "{\"query\": \"mat\"}"), 200, null);
        status(api.call("GET", "/v1/memories", ACME, null), 200, null);
        status(api.call("DELETE", "/v1/users/u-7", ACME, null), 202, null);
        status(api.call("POST", "/v1/memories", GLOBEX, memory("other")), 202, null);

        long bytes = texts.stream().mapToLong(t -> t.getBytes(StandardCharsets.UTF_8).length).sum();
        JsonNode day = api.call("GET", "/v1/usage", ACME, null).body().at("/usage/0");
        assertThat(day.toString()).isEqualTo("{\"tenant_id\":\"acme\",\"day\":\"2025-06-01\",\"records_written\":3,"
                + "\"bytes_written\":" + bytes + ",\"writes\":1,\"reads\":3,\"contexts\":1,\"forgets\":1,\"embed_millis\":0}");
        assertThat(api.call("GET", "/v1/usage", OPERATOR, "globex", null).body().at("/usage/0/bytes_written").asLong())
                .isEqualTo(5);
        assertThat(api.call("GET", "/v1/admin/usage?from=2025-06-01&to=2025-06-01", ADMIN, null).body().get("usage"))
                .extracting(u -> u.get("tenant_id").asText() + " " + u.get("records_written")).containsExactly("acme 3", "globex 1");
        status(api.call("GET", "/v1/usage?from=2025-06-02&to=2025-06-01", ACME, null), 400, "invalid_request");
    }

    @Test
    void aReadWhoseBodyNamesAnotherTenantIs403AndAudited() throws Exception {
        status(api.call("POST", "/v1/search", ACME, "{\"query\": \"q\", \"tenant_id\": \"globex\"}"), 403, "forbidden");
        status(api.call("POST", "/v1/context", ACME, "{\"query\": \"q\", \"tenant_id\": \"globex\"}"), 403, "forbidden");
        status(api.call("POST", "/v1/search", ACME, "{\"query\": \"q\", \"tenant_id\": \"acme\"}"), 200, null);
        assertThat(api.backends.audit).containsExactly("acme cross_tenant POST /v1/search named tenant globex",
                "acme cross_tenant POST /v1/context named tenant globex");
    }
}
