package io.engram.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.client.KafkaClients;
import io.engram.client.Topics;
import io.engram.model.embed.EmbeddingModel;
import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The service as {@code ServiceMain} and {@code ./engram up} start it, on real Kafka, OpenSearch and PostgreSQL:
 * its dispatcher runs, a webhook registered over HTTP gets its tenant's changes from the change feed, signed, and
 * goes with its tenant when the tenant is deleted.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class WebhookServiceTest {

    private static final String ADMIN_KEY = "webhooks-admin-key-0123456789abcdef";

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void theServiceDeliversItsTenantsChangesToAWebhookRegisteredOverHttp(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch,
                                                                        EmbeddedPostgreSql postgres) throws Exception {
        WebhookStoreContractTest.clean(postgres);
        String index = "engram-memories-webhooks";
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearch.httpUrl(), index, RetryPolicy.DEFAULT)) {
            store.ensureIndex(EmbeddingModel.HASHED_STANDIN.id(), EmbeddingModel.DIMENSION);
        }
        Topics.create(KafkaClients.at(kafka.bootstrapServers()), 2);
        Properties settings = new Properties();
        settings.putAll(Map.of("kafka.bootstrap", kafka.bootstrapServers(), "opensearch.url", openSearch.httpUrl(),
                "opensearch.index", index, "postgres.url", postgres.jdbcUrl(), "postgres.user", EmbeddedPostgreSql.USER,
                "webhooks.poll-ms", "20", "webhooks.group", "webhooks-" + UUID.randomUUID()));
        ServiceConfig config = ServiceConfig.from(settings, Map.of()).withListen("127.0.0.1", 0);
        String tenant = "svc-" + UUID.randomUUID().toString().substring(0, 8);
        try (WebhookReceiver receiver = new WebhookReceiver();
             MemoryService service = MemoryService.start(config, ApiKeys.of(ApiKeys.keyFileLine(ADMIN_KEY, ApiKeys.ADMIN_GRANT)));
             KafkaProducer<String, String> producer = producer(kafka)) {
            String base = "http://127.0.0.1:" + service.port();
            JsonNode made = call("POST", base + "/v1/webhooks", tenant, "{\"url\": \"" + receiver.url("/svc") + "\"}");
            String id = made.get("id").asText();
            List<String> changeIds = List.of(UUID.randomUUID().toString().replace("-", ""),
                    UUID.randomUUID().toString().replace("-", ""));
            for (String t : List.of(tenant, "someone-else")) {
                for (String changeId : changeIds) {
                    producer.send(new ProducerRecord<>(Topics.CHANGES, t, "{\"schema\":\"change.v1\",\"change_id\":\""
                            + changeId + "\",\"tenant_id\":\"" + t + "\",\"kind\":\"expired\",\"ts\":\"2026-12-07T18:00:00Z\","
                            + "\"record_id\":\"" + t + "/m\"}"));
                }
            }
            producer.flush();

            WebhookDeliveryTest.await("two deliveries", () -> call("GET", base + "/v1/webhooks/" + id + "/deliveries",
                    tenant, null).get("deliveries").size() >= 2);
            assertThat(receiver.acknowledged("/svc")).isEqualTo(changeIds);
            WebhookReceiver.Received first = receiver.received.get(0);
            assertThat(first.signature()).isEqualTo(WebhookSignature.header(made.get("secret").asText(),
                    Long.parseLong(first.timestamp()), first.body()));
            assertThat(call("GET", base + "/v1/webhooks/" + id, tenant, null).get("pending").asInt()).isZero();

            call("DELETE", base + "/v1/admin/tenants/" + tenant, null, null);
            assertThat(call("GET", base + "/v1/webhooks", tenant, null).get("webhooks")).as("gone with its tenant").isEmpty();
        }
    }

    private static KafkaProducer<String, String> producer(EmbeddedKafka kafka) {
        Properties p = KafkaClients.at(kafka.bootstrapServers()).config();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return new KafkaProducer<>(p);
    }

    /** A request with the admin key, naming {@code tenant}; its JSON answer, which must be a success. */
    private JsonNode call(String method, String url, String tenant, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + ADMIN_KEY)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (tenant != null) {
            request.header(MemoryService.TENANT_HEADER, tenant);
        }
        HttpResponse<String> answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(method + " " + url + ": " + answer.body()).isBetween(200, 299);
        return ResponsesJson.JSON.readTree(answer.body());
    }
}
