package io.engram.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.engram.client.EngramProducer;
import io.engram.client.Payload;
import io.engram.client.Topics;
import io.engram.jobs.pipeline.CollapseSimulationTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The live embedded product ({@link LiveProduct}, what {@code ./engram up} runs) of the tests of what people look
 * at ({@link LiveProductViewsTest}), with every fixture record sent at start so no test depends on another's order: the collapse and churn simulations; tenant
 * acme's agent document, memories (one derived from another, one whose text is script markup, one to forget, two
 * of one key, the newer superseding the older)
 * and a session; a globex memory; and two malformed inputs, one of acme's.
 */
final class LiveFixture {

    static final String ACME = "acme";
    static final String GLOBEX = "globex";
    static final String SCRIPT_TEXT = "Ann wrote <script>window.engramPwned = 1</script><img src=x onerror=\"window.engramPwned = 2\"> in her notes";
    static final String AGENTS_MD = """
            # Support agent

            ## Rules
            - You must never share one user's allergies with another user.
            - Always answer in English.

            ## Style
            - Prefer short answers.
            """;
    private static final ObjectMapper JSON = new ObjectMapper();

    final LiveProduct product;
    /** Where acme's malformed memory landed: {@code topic/partition/offset}. */
    final String acmeRejectAt;
    final byte[] acmeRejectBytes;

    private LiveFixture(LiveProduct product, String acmeRejectAt, byte[] acmeRejectBytes) {
        this.product = product;
        this.acmeRejectAt = acmeRejectAt;
        this.acmeRejectBytes = acmeRejectBytes;
    }

    /**
     * Waits until both simulations' cycles are all closed: their last by the quiet gap, once acme's later writes
     * move event time past it (9 rows of sim-collapse, 7 of sim-churn), so what tests read no longer changes.
     */
    void awaitSimulationsClosed() throws Exception {
        Polling.await("the simulations' cycles all closed", Duration.ofSeconds(180),
                () -> cycleRows("sim-collapse") == 9 && cycleRows("sim-churn") == 7);
    }

    private int cycleRows(String tenant) throws Exception {
        try (var c = java.sql.DriverManager.getConnection(product.pipeline().getProperty("postgres.url"), "postgres", "");
             var s = c.prepareStatement("SELECT count(*) FROM cycle_metrics WHERE tenant_id = ?")) {
            s.setString(1, tenant);
            try (var rs = s.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    String key(String tenant) {
        return product.keys().get(tenant);
    }

    String operatorKey() {
        return product.keys().get(io.engram.service.ApiKeys.OPERATOR);
    }

    /** Whether the tenant's memory listing holds these gateway memory ids. */
    boolean listsMemories(String tenant, java.util.Set<String> memoryIds) throws Exception {
        HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(product.apiUrl()
                + "/v1/memories?limit=50")).header("Authorization", "Bearer " + key(tenant)).build(),
                HttpResponse.BodyHandlers.ofString());
        java.util.Set<String> ids = new java.util.HashSet<>();
        JSON.readTree(answer.body()).path("records").forEach(r -> ids.add(r.path("id").asText()));
        return memoryIds.stream().allMatch(m -> ids.contains(io.engram.store.RecordIds.memory(tenant, m)));
    }

    static LiveFixture start() throws Exception {
        Properties fast = new Properties();
        fast.setProperty("checkpoint.interval", "1s");
        LiveProduct product = LiveProduct.start(Optional.empty(), 0, List.of(ACME, GLOBEX, io.engram.service.ApiKeys.OPERATOR),
                fast, line -> { });
        String bootstrap = product.pipeline().getProperty("kafka.bootstrap");
        try (EngramProducer producer = new EngramProducer(bootstrap)) {
            CollapseSimulationTest.produceCollapse(producer);
            CollapseSimulationTest.produceChurn(producer);
            producer.flush();
        }
        Properties raw = new Properties();
        raw.put("bootstrap.servers", bootstrap);
        RecordMetadata at;
        byte[] acmeBad = ("{\"schema\": \"memory.v1\", \"tenant_id\": \"acme\", \"memory_id\": \"half\", \"op\": \"upsert\","
                + " \"note\": \"\\u0001 not a memory\"}").getBytes(StandardCharsets.UTF_8);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(raw, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(Topics.TURNS, "{\"tenant_id\": ".getBytes(StandardCharsets.UTF_8))).get();
            at = producer.send(new ProducerRecord<>(Topics.MEMORIES, acmeBad)).get();
        }
        LiveFixture fixture = new LiveFixture(product, at.topic() + "/" + at.partition() + "/" + at.offset(), acmeBad);
        Instant t0 = Instant.now().minusSeconds(3600);
        fixture.post(ACME, "/v1/documents", JSON.createObjectNode().put("agent_id", "support").put("path", "AGENTS.md")
                .put("doc_class", "core").put("version", 1).put("content", AGENTS_MD));
        fixture.post(ACME, "/v1/memories", memory("m-hazelnut", "memory", "Ann is allergic to hazelnuts", List.of(), t0));
        fixture.post(ACME, "/v1/memories", memory("m-lesson", "lesson",
                "Check every recipe for hazelnuts before suggesting it to Ann", List.of("m-hazelnut"), t0.plusSeconds(60)));
        fixture.post(ACME, "/v1/memories", memory("m-script", "memory", SCRIPT_TEXT, List.of(), t0.plusSeconds(120)));
        fixture.post(ACME, "/v1/memories", memory("m-forget", "memory", "Ann's old phone number ends in 4711", List.of(),
                t0.plusSeconds(180)));
        // a chain: the newer memory of the same key (and user) supersedes the older
        for (String[] city : new String[][] {{"m-city-old", "Ann lives in Paris", "200"},
                {"m-city-new", "Ann has moved to Berlin", "240"}}) {
            fixture.post(ACME, "/v1/memories", memory(city[0], "memory", city[1], List.of(),
                    t0.plusSeconds(Long.parseLong(city[2]))).put("user_id", "ann").put("key", "user.city"));
        }
        for (int i = 0; i < 6; i++) {
            fixture.post(ACME, "/v1/turns", JSON.createObjectNode().put("session_id", "s1").put("user_id", "ann")
                    .put("turn_id", "t" + i).put("seq", i).put("role", i % 2 == 0 ? "user" : "assistant")
                    .put("text", i % 2 == 0 ? "Can you suggest a dessert for Sunday, turn " + i + "?"
                            : "How about a lemon tart, without nuts (turn " + i + ")").put("ts", t0.plusSeconds(300 + 60L * i).toString()));
        }
        fixture.post(GLOBEX, "/v1/memories", memory("g-secret", "memory", "Globex's launch date is the third of March",
                List.of(), t0));
        return fixture;
    }

    private static com.fasterxml.jackson.databind.node.ObjectNode memory(String id, String type, String text,
                                                                        List<String> sources, Instant ts) {
        var o = JSON.createObjectNode().put("memory_id", id).put("type", type).put("text", text)
                .put("generation", sources.isEmpty() ? 0 : 1).put("ts", ts.toString());
        sources.forEach(o.putArray("source_refs")::add);
        return o;
    }

    private void post(String tenant, String path, Object body) throws Exception {
        HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(product.apiUrl() + path))
                .header("Authorization", "Bearer " + key(tenant)).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build(), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 202) {
            throw new IllegalStateException(path + " answered " + answer.statusCode() + ": " + answer.body());
        }
    }
}
