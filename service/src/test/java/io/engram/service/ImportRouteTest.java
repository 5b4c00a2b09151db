package io.engram.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.client.Payload;
import io.engram.service.ServiceHarness.Answer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** {@code POST /v1/import} over in-memory backends: counts, rejects, Mem0's format, quotas, scopes, Kafka down. */
class ImportRouteTest {

    @AutoClose
    private final ServiceHarness api = new ServiceHarness();

    private static String memory(String tenant, String id, String text) {
        return "{\"schema\":\"memory.v1\",\"tenant_id\":\"" + tenant + "\",\"memory_id\":\"" + id
                + "\",\"type\":\"memory\",\"op\":\"upsert\",\"text\":\"" + text + "\",\"ts\":\"2025-01-02T00:00:00Z\"}";
    }

    private static String memories(int count) {
        return IntStream.range(0, count).mapToObj(i -> memory("old", "m" + i, "fact " + i)).collect(Collectors.joining("\n"));
    }

    private static void status(Answer answer, int status, String code) {
        assertThat(answer.status()).as("%s", answer.body()).isEqualTo(status);
        if (code != null) {
            assertThat(answer.code()).isEqualTo(code);
        }
    }

    @Test
    void anExportIsPublishedAsTheKeysTenantWithItsSkipsAndRejectsCounted() throws Exception {
        String export = String.join("\n", memory("old", "m1", "likes tea"),
                "{\"schema\":\"turn.v1\",\"tenant_id\":\"old\",\"session_id\":\"s1\",\"turn_id\":\"t1\",\"seq\":1,"
                        + "\"role\":\"user\",\"text\":\"hello\",\"ts\":\"2025-01-01T00:00:00Z\"}",
                "{\"schema\":\"derived.v1\",\"tenant_id\":\"old\"}",
                "{\"schema\":\"memory.v1\",\"tenant_id\":\"old\",\"memory_id\":\"m-trunc\"",
                memory("old", "m2", "likes green tea"));

        Answer answer = api.call("POST", "/v1/import", ServiceHarness.ACME, export);

        status(answer, 200, null);
        assertThat(answer.body().get("accepted").toString()).isEqualTo("{\"memory.v1\":2,\"turn.v1\":1}");
        assertThat(answer.body().get("skipped").asLong()).isEqualTo(1);
        assertThat(answer.body().get("rejected")).hasSize(1);
        assertThat(answer.body().at("/rejected/0/line").asLong()).isEqualTo(4);
        assertThat(answer.body().at("/rejected/0/error").asText()).startsWith("invalid_json: ");
        assertThat(answer.body().get("rejected_not_listed").asLong()).isZero();
        assertThat(api.backends.published).extracting(Payload::key).containsExactly("acme", "acme/s1", "acme");
        assertThat(api.call("GET", "/v1/memories/m2", ServiceHarness.ACME, null).body().get("text").asText())
                .isEqualTo("likes green tea");
    }

    @Test
    void mem0sListingIsImportedWithFormatMem0AndAnUnknownFormatIsRefused() throws Exception {
        String listing = "{\"count\": 1, \"next\": null, \"previous\": null, \"results\": [{\"id\": \"9f2c\","
                + " \"memory\": \"Alex prefers vegetarian restaurants\", \"user_id\": \"alex\","
                + " \"created_at\": \"2024-07-05T15:30:00Z\", \"updated_at\": \"2024-07-06T10:00:00Z\"}]}";

        Answer answer = api.call("POST", "/v1/import?format=mem0", ServiceHarness.ACME, listing);

        status(answer, 200, null);
        assertThat(answer.body().get("accepted").toString()).isEqualTo("{\"memory.v1\":1}");
        assertThat(api.backends.published.get(0).json().toString()).isEqualTo("{\"schema\":\"memory.v1\","
                + "\"memory_id\":\"9f2c\",\"type\":\"memory\",\"op\":\"upsert\","
                + "\"text\":\"Alex prefers vegetarian restaurants\",\"user_id\":\"alex\",\"ts\":\"2024-07-06T10:00:00Z\","
                + "\"tenant_id\":\"acme\"}");
        Answer unknown = api.call("POST", "/v1/import?format=csv", ServiceHarness.ACME, listing);
        status(unknown, 400, "invalid_request");
        assertThat(unknown.message()).isEqualTo("format: unknown format 'csv' (engram or mem0)");
    }

    @Test
    void aBatchPastTheRecordsQuotaStopsTheImportSayingHowManyWentBeforeIt() throws Exception {
        ServiceHarness.Answer made = api.call("POST", "/v1/admin/tenants", ServiceHarness.ADMIN,
                "{\"tenant_id\": \"initech\", \"quotas\": {\"records\": 600}}");
        status(made, 201, null);
        String key = api.call("POST", "/v1/keys", ServiceHarness.ADMIN, "initech",
                "{\"name\": \"agent\", \"scopes\": [\"read\", \"write\"]}").body().get("secret").asText();

        Answer refused = api.call("POST", "/v1/import", key, memories(700)); // batches of 500: the second passes 600

        status(refused, 403, "quota_exceeded");
        assertThat(refused.body().get("error").toString()).contains("\"quota\":\"records\"", "\"limit\":600",
                "\"records_imported\":500");
        assertThat(api.backends.published).hasSize(500);
        assertThat(api.call("GET", "/v1/usage", key, null).body().toString()).contains("\"records_written\":500");
    }

    @Test
    void aKeyWithoutTheWriteScopeIsRefusedAndNothingIsPublished() throws Exception {
        String reader = api.call("POST", "/v1/keys", ServiceHarness.ADMIN, "acme",
                "{\"name\": \"reader\", \"scopes\": [\"read\"]}").body().get("secret").asText();

        status(api.call("POST", "/v1/import", reader, memories(2)), 403, "insufficient_scope");
        status(api.call("POST", "/v1/import", ServiceHarness.OPERATOR, "acme", memories(2)), 403, null);
        assertThat(api.backends.published).isEmpty();
    }

    @Test
    void kafkaNotAcknowledgingIsA503() throws Exception {
        api.backends.kafkaDown = true;

        status(api.call("POST", "/v1/import", ServiceHarness.ACME, memories(2)), 503, "kafka_unavailable");
    }
}
