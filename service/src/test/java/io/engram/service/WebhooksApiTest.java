package io.engram.service;

import static io.engram.service.ServiceHarness.ACME;
import static io.engram.service.ServiceHarness.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.service.ServiceHarness.Answer;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The webhook registration API over in-memory backends: what it makes and shows, and every refusal. Delivery,
 * against Kafka, PostgreSQL and a real receiver: {@code WebhookDeliveryTest}.
 */
class WebhooksApiTest {

    @AutoClose
    private final ServiceHarness api = new ServiceHarness();
    private String acmeAdmin;

    @BeforeEach
    void anAdminKeyOfAcme() throws Exception {
        Answer key = api.call("POST", "/v1/keys", ADMIN, "acme", "{\"name\": \"hooks\", \"scopes\": [\"read\", \"admin\"]}");
        assertThat(key.status()).isEqualTo(201);
        acmeAdmin = key.body().get("secret").asText();
    }

    private static void refused(Answer answer, int status, String code, String message) {
        assertThat(answer.status()).as("%s", answer.body()).isEqualTo(status);
        assertThat(answer.code()).isEqualTo(code);
        assertThat(answer.message()).contains(message);
    }

    private Answer register(String body) throws Exception {
        return api.call("POST", "/v1/webhooks", acmeAdmin, body);
    }

    @Test
    void aWebhookIsRegisteredWithAFreshSecretShownOnceAndListedWithItsState() throws Exception {
        Answer made = register("{\"url\": \"https://hooks.example.com/engram\", \"kinds\": [\"upserted\", \"forgotten\"],"
                + " \"description\": \"crm sync\"}");
        assertThat(made.status()).isEqualTo(201);
        JsonNode w = made.body();
        assertThat(w.get("id").asText()).matches("wh_[0-9a-f]{16}");
        assertThat(w.get("secret").asText()).matches("[0-9a-f]{64}");
        assertThat(w.get("tenant_id").asText()).isEqualTo("acme");
        assertThat(w.get("url").asText()).isEqualTo("https://hooks.example.com/engram");
        assertThat(w.get("kinds").toString()).isEqualTo("[\"forgotten\",\"upserted\"]");
        assertThat(w.get("description").asText()).isEqualTo("crm sync");
        assertThat(w.get("state").asText()).isEqualTo("active");
        assertThat(w.get("paused_reason").isNull()).isTrue();
        assertThat(w.get("failures_in_row").asInt()).isZero();
        assertThat(w.get("pending").asLong()).isZero();
        assertThat(w.get("created_at").asText()).isEqualTo(InMemoryBackends.NOW.toString());

        String other = register("{\"url\": \"http://127.0.0.1:9/all\"}").body().get("secret").asText();
        assertThat(other).as("each webhook its own secret").isNotEqualTo(w.get("secret").asText());

        Answer got = api.call("GET", "/v1/webhooks/" + w.get("id").asText(), acmeAdmin, null);
        assertThat(got.status()).isEqualTo(200);
        assertThat(got.body().has("secret")).as("the secret shows once").isFalse();
        assertThat(got.body().get("url").asText()).isEqualTo("https://hooks.example.com/engram");
        JsonNode listed = api.call("GET", "/v1/webhooks", acmeAdmin, null).body();
        assertThat(listed.get("webhooks")).hasSize(2);
        assertThat(listed.get("webhooks").findValuesAsText("url"))
                .containsExactlyInAnyOrder("https://hooks.example.com/engram", "http://127.0.0.1:9/all");
        for (JsonNode listedWebhook : listed.get("webhooks")) {
            assertThat(listedWebhook.get("kinds").size()).as("every kind when none was asked")
                    .isEqualTo(listedWebhook.get("url").asText().endsWith("/all") ? 0 : 2);
        }
        assertThat(listed.toString()).doesNotContain("secret");
        assertThat(api.call("GET", "/v1/webhooks", ADMIN, "acme", null).body().get("webhooks"))
                .as("the operator admin key names the tenant").hasSize(2);
    }

    @Test
    void aBadUrlOrKindOrAMissingUrlIsRefusedNamingWhatIsWrong() throws Exception {
        refused(register("{}"), 400, "invalid_request", "url is required");
        refused(register("{\"url\": 42}"), 400, "invalid_request", "url must be a string");
        for (String url : List.of("ftp://example.com/x", "/relative/path", "example.com/engram", "https:///nohost",
                "mailto:ops@example.com")) {
            refused(register("{\"url\": \"" + url + "\"}"), 400, "invalid_request", "absolute http or https URL");
        }
        refused(register("{\"url\": \"http://exa mple.com\"}"), 400, "invalid_request", "url is not a URL");
        refused(register("{\"url\": \"https://user:pw@example.com/x\"}"), 400, "invalid_request", "user name or password");
        refused(register("{\"url\": \"https://example.com/" + "x".repeat(Webhooks.MAX_URL_CHARS) + "\"}"), 400,
                "invalid_request", "url is longer than 2048");
        refused(register("{\"url\": \"https://example.com\", \"kinds\": [\"upserted\", \"created\"]}"), 400,
                "invalid_request", "unknown change kind \"created\"");
        refused(register("{\"url\": \"https://example.com\", \"kinds\": []}"), 400, "invalid_request", "non-empty array");
        refused(register("{\"url\": \"https://example.com\", \"kinds\": \"upserted\"}"), 400, "invalid_request",
                "non-empty array");
        refused(register("[1]"), 400, "invalid_json", "JSON object");
        assertThat(api.backends.webhooks.list("acme")).isEmpty();
    }

    @Test
    void onlyAKeyWithTheAdminScopeManagesWebhooksAndOnlyItsOwnTenants() throws Exception {
        refused(api.call("POST", "/v1/webhooks", ACME, "{\"url\": \"https://example.com\"}"), 403, "insufficient_scope",
                "may not admin");
        refused(api.call("GET", "/v1/webhooks", ACME, null), 403, "insufficient_scope", "may not admin");
        refused(api.call("GET", "/v1/webhooks", null, null), 401, "unauthorized", "an API key is required");
        String id = register("{\"url\": \"https://example.com\"}").body().get("id").asText();
        Answer globexAdmin = api.call("POST", "/v1/keys", ADMIN, "globex", "{\"name\": \"h\", \"scopes\": [\"admin\"]}");
        String globex = globexAdmin.body().get("secret").asText();
        for (String[] call : List.of(new String[] {"GET", ""}, new String[] {"DELETE", ""},
                new String[] {"POST", "/resume"}, new String[] {"GET", "/deliveries"})) {
            refused(api.call(call[0], "/v1/webhooks/" + id + call[1], globex, null), 404, "not_found", "no webhook " + id);
        }
        assertThat(api.call("GET", "/v1/webhooks", globex, null).body().get("webhooks")).isEmpty();
        assertThat(api.backends.webhooks.list("acme")).hasSize(1);
    }

    @Test
    void deletingResumingAndTheLogAnswerForWhatExistsAndTheLimitIsBounded() throws Exception {
        String id = register("{\"url\": \"https://example.com\"}").body().get("id").asText();
        WebhookStore store = api.backends.webhooks;
        store.enqueue(List.of(new WebhookStore.Change(0, 7, "acme", "c".repeat(32), "deleted", "{}")), InMemoryBackends.NOW);
        WebhookStore.Queued head = store.head(id).orElseThrow();
        Instant at = InMemoryBackends.NOW;
        store.failed(id, head, new WebhookStore.Attempt(head.changeId(), "deleted", 1, 503, "HTTP 503 from https://example.com",
                at), at.plusSeconds(1), new WebhookStore.Pause(at, "HTTP 503 from https://example.com"), 10);

        JsonNode paused = api.call("GET", "/v1/webhooks/" + id, acmeAdmin, null).body();
        assertThat(paused.get("state").asText()).isEqualTo("paused");
        assertThat(paused.get("paused_reason").asText()).isEqualTo("HTTP 503 from https://example.com");
        assertThat(paused.get("paused_since").asText()).isEqualTo(at.toString());
        assertThat(paused.get("failures_in_row").asInt()).isEqualTo(1);
        assertThat(paused.get("pending").asInt()).isEqualTo(1);
        JsonNode log = api.call("GET", "/v1/webhooks/" + id + "/deliveries?limit=5", acmeAdmin, null).body();
        assertThat(log.at("/deliveries/0/status").asInt()).isEqualTo(503);
        assertThat(log.at("/deliveries/0/attempt").asInt()).isEqualTo(1);
        assertThat(log.at("/deliveries/0/delivered").asBoolean()).isFalse();
        refused(api.call("GET", "/v1/webhooks/" + id + "/deliveries?limit=0", acmeAdmin, null), 400, "invalid_request",
                "limit must be an integer from 1 to 1000");

        JsonNode resumed = api.call("POST", "/v1/webhooks/" + id + "/resume", acmeAdmin, null).body();
        assertThat(resumed.get("state").asText()).isEqualTo("active");
        assertThat(resumed.get("failures_in_row").asInt()).isZero();
        assertThat(resumed.get("pending").asInt()).as("its queue kept").isEqualTo(1);

        assertThat(api.call("DELETE", "/v1/webhooks/" + id, acmeAdmin, null).status()).isEqualTo(204);
        refused(api.call("DELETE", "/v1/webhooks/" + id, acmeAdmin, null), 404, "not_found", "no webhook");
        refused(api.call("POST", "/v1/webhooks/wh_nothing/resume", acmeAdmin, null), 404, "not_found", "no webhook");
    }

    @Test
    void aTenantHasABoundedNumberOfWebhooksAndADeletedTenantsGoWithIt() throws Exception {
        for (int i = 0; i < Webhooks.MAX_PER_TENANT; i++) {
            assertThat(register("{\"url\": \"https://example.com/" + i + "\"}").status()).isEqualTo(201);
        }
        refused(register("{\"url\": \"https://example.com/more\"}"), 409, "too_many_webhooks", "at most 20 webhooks");
        assertThat(api.call("DELETE", "/v1/admin/tenants/acme", ADMIN, null).status()).isEqualTo(202);
        assertThat(api.backends.webhooks.list("acme")).isEmpty();
    }
}
