package io.engram.stack;

import io.engram.schema.SchemaMigrations;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(EmbeddedServicesExtension.class)
class EmbeddedStackIntegrationTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void kafkaRecordIsProducedAndConsumed(EmbeddedKafka kafka) throws Exception {
        String topic = "stack-test.turns";
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Properties producerProps = new Properties();
        producerProps.put("bootstrap.servers", kafka.bootstrapServers());
        producerProps.put("key.serializer", StringSerializer.class.getName());
        producerProps.put("value.serializer", StringSerializer.class.getName());
        producerProps.put("enable.idempotence", "true");
        RecordMetadata written;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps)) {
            written = producer.send(new ProducerRecord<>(topic, "acme/s1", "{\"text\":\"hello kafka\"}"))
                    .get(30, TimeUnit.SECONDS);
        }

        Properties consumerProps = new Properties();
        consumerProps.put("bootstrap.servers", kafka.bootstrapServers());
        consumerProps.put("group.id", "stack-test");
        consumerProps.put("auto.offset.reset", "earliest");
        consumerProps.put("key.deserializer", StringDeserializer.class.getName());
        consumerProps.put("value.deserializer", StringDeserializer.class.getName());
        List<ConsumerRecord<String, String>> received = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (received.isEmpty() && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(500)).forEach(received::add);
            }
        }
        assertThat(received).hasSize(1);
        ConsumerRecord<String, String> record = received.get(0);
        assertThat(record.key()).isEqualTo("acme/s1");
        assertThat(record.value()).isEqualTo("{\"text\":\"hello kafka\"}");
        assertThat(record.partition()).isEqualTo(written.partition());
        assertThat(record.offset()).isEqualTo(written.offset());
    }

    @Test
    void openSearchAnswersTenantFilteredKnnAndBm25(EmbeddedOpenSearch openSearch) throws Exception {
        String index = "stack-test-memories";
        JsonNode created = send(openSearch, "PUT", "/" + index, """
                {"settings": {"index": {"number_of_shards": 1, "number_of_replicas": 0, "knn": true}},
                 "mappings": {"properties": {
                   "tenant_id": {"type": "keyword"},
                   "text": {"type": "text"},
                   "embedding": {"type": "knn_vector", "dimension": 3,
                     "method": {"name": "hnsw", "engine": "lucene", "space_type": "cosinesimil"}}}}}
                """);
        assertThat(created.path("acknowledged").asBoolean()).isTrue();

        StringBuilder bulk = new StringBuilder();
        bulkLine(bulk, index, "acme-1", "acme", "the deploy key lives in the vault", new float[] {1, 0, 0});
        bulkLine(bulk, index, "acme-2", "acme", "lunch is at noon on fridays", new float[] {0, 1, 0});
        bulkLine(bulk, index, "globex-1", "globex", "the deploy key lives in the vault", new float[] {1, 0, 0});
        JsonNode bulkResult = send(openSearch, "POST", "/_bulk?refresh=true", bulk.toString(), "application/x-ndjson");
        assertThat(bulkResult.path("errors").asBoolean()).isFalse();

        JsonNode knn = send(openSearch, "POST", "/" + index + "/_search", """
                {"size": 5, "query": {"knn": {"embedding": {"vector": [0.9, 0.1, 0], "k": 5,
                  "filter": {"term": {"tenant_id": "acme"}}}}}}
                """);
        List<String> knnIds = ids(knn);
        assertThat(knnIds).containsExactly("acme-1", "acme-2");

        JsonNode bm25 = send(openSearch, "POST", "/" + index + "/_search", """
                {"size": 5, "query": {"bool": {"must": {"match": {"text": "vault deploy"}},
                  "filter": {"term": {"tenant_id": "globex"}}}}}
                """);
        assertThat(ids(bm25)).containsExactly("globex-1");
        assertThat(bm25.at("/hits/hits/0/_source/text").asText()).isEqualTo("the deploy key lives in the vault");

        JsonNode mapping = send(openSearch, "GET", "/" + index + "/_mapping", null);
        assertThat(mapping.at("/" + index + "/mappings/properties/embedding/method/engine").asText()).isEqualTo("lucene");
    }

    @Test
    void postgresHasTheMigratedSchemaAndKeepsRows(EmbeddedPostgreSql postgres) throws Exception {
        try (Connection c = postgres.connect()) {
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT max(version) FROM engram_schema_history")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(SchemaMigrations.bundled().size());
            }
            OffsetDateTime closedAt = OffsetDateTime.of(2026, 11, 29, 12, 0, 0, 0, ZoneOffset.UTC);
            try (PreparedStatement insert = c.prepareStatement("""
                    INSERT INTO cycle_metrics (tenant_id, cycle_id, ts, close_reason, canary_set_id, canary_count,
                      mean_recall, mean_ndcg, mean_mrr, canary_ranks_json, store_total, store_by_type_json,
                      distinct_content_ratio, mean_bigram_diversity, over_generation_count, accepted_actions)
                    VALUES ('stack-test', 'c1', ?, 'cycle_id', 'set-1', 2, 0.5, 0.43, 0.25, '[["a",0],["b",-1]]',
                      30, '{"memory":30}', 0.9, 0.75, 0, 12)
                    """)) {
                insert.setObject(1, closedAt);
                assertThat(insert.executeUpdate()).isEqualTo(1);
            }
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT mean_recall, store_total, accepted_actions, ts "
                         + "FROM cycle_metrics WHERE tenant_id = 'stack-test' AND cycle_id = 'c1'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getDouble("mean_recall")).isEqualTo(0.5);
                assertThat(rs.getLong("store_total")).isEqualTo(30);
                assertThat(rs.getLong("accepted_actions")).isEqualTo(12);
                assertThat(rs.getObject("ts", OffsetDateTime.class).toInstant()).isEqualTo(closedAt.toInstant());
                assertThat(rs.next()).isFalse();
            }
            // Applying again is a no-op: nothing pending.
            assertThat(SchemaMigrations.applyPending(c)).isEmpty();
        }
    }

    private static void bulkLine(StringBuilder bulk, String index, String id, String tenant, String text, float[] v)
            throws Exception {
        bulk.append(JSON.writeValueAsString(Map.of("index", Map.of("_index", index, "_id", id, "routing", tenant))))
                .append('\n')
                .append(JSON.writeValueAsString(Map.of("tenant_id", tenant, "text", text, "embedding", v)))
                .append('\n');
    }

    private static List<String> ids(JsonNode response) {
        List<String> ids = new ArrayList<>();
        response.path("hits").path("hits").forEach(hit -> ids.add(hit.path("_id").asText()));
        return ids;
    }

    private JsonNode send(EmbeddedOpenSearch openSearch, String method, String path, String body) throws Exception {
        return send(openSearch, method, path, body, "application/json");
    }

    private JsonNode send(EmbeddedOpenSearch openSearch, String method, String path, String body, String type)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(openSearch.httpUrl() + path))
                .header("Content-Type", type)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("%s %s -> %s", method, path, response.body()).isBetween(200, 299);
        return JSON.readTree(response.body());
    }
}
