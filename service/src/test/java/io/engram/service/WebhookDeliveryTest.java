package io.engram.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.client.KafkaClients;
import io.engram.client.Topics;
import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.EmbeddedServicesExtension;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Webhooks delivered for real: change.v1 messages produced to the change feed on a real Kafka, the dispatcher
 * queuing them in a real PostgreSQL and POSTing them to a real HTTP receiver that fails, goes down, comes back,
 * keeps failing; and a dispatcher closed mid-stream and replaced. What the receiver acknowledged is counted by
 * change id: every change once, in its tenant's order, every signature valid.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class WebhookDeliveryTest {

    private EmbeddedPostgreSql postgres;
    private KafkaClients kafka;
    private KafkaProducer<String, String> producer;
    private WebhookStore store;
    private Webhooks webhooks;
    private final WebhookReceiver receiver = new WebhookReceiver();
    private final List<WebhookDispatcher> dispatchers = new ArrayList<>();

    @BeforeEach
    void connect(EmbeddedKafka embeddedKafka, EmbeddedPostgreSql embeddedPostgres) throws Exception {
        postgres = embeddedPostgres;
        WebhookStoreContractTest.clean(postgres);
        kafka = KafkaClients.at(embeddedKafka.bootstrapServers());
        Topics.create(kafka, 2);
        Properties p = kafka.config();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producer = new KafkaProducer<>(p);
        store = newStore();
        webhooks = new Webhooks(store, Clock.systemUTC());
    }

    @AfterEach
    void close() {
        dispatchers.forEach(WebhookDispatcher::close);
        receiver.close();
        producer.close();
        store.close();
    }

    private WebhookStore newStore() {
        return new PostgresWebhookStore(new Jdbc(postgres.jdbcUrl(), EmbeddedPostgreSql.USER, ""));
    }

    /** A dispatcher of the group with milliseconds for backoff, pausing after {@code pauseAfter} failures in a row. */
    private WebhookDispatcher dispatcher(String group, int pauseAfter) {
        Properties p = new Properties();
        p.putAll(Map.of("webhooks.group", group, "webhooks.poll-ms", "20", "webhooks.backoff-initial-ms", "20",
                "webhooks.backoff-max-ms", "200", "webhooks.pause-after-failures", String.valueOf(pauseAfter),
                "webhooks.timeout-ms", "3000", "webhooks.lease-ms", "10000", "webhooks.log-size", "1000",
                "webhooks.senders", "2"));
        WebhookDispatcher d = WebhookDispatcher.start(kafka, ServiceConfig.from(p, Map.of()).webhooks(), this::newStore,
                Clock.systemUTC());
        dispatchers.add(d);
        return d;
    }

    private static String tenant() {
        return "wh-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private WebhookStore.Registered register(String tenant, String path, String kinds) throws Exception {
        JsonNode args = ResponsesJson.JSON.readTree("{\"url\": \"" + receiver.url(path) + "\""
                + (kinds == null ? "" : ", \"kinds\": " + kinds) + "}");
        return webhooks.create(tenant, args);
    }

    /** Publishes {@code n} changes of the tenant, kinds alternating upserted and deleted; returns their messages. */
    private List<JsonNode> publish(String tenant, int n) throws Exception {
        List<JsonNode> changes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String id = UUID.randomUUID().toString().replace("-", "");
            String json = "{\"schema\":\"change.v1\",\"change_id\":\"" + id + "\",\"tenant_id\":\"" + tenant + "\",\"kind\":\""
                    + (i % 2 == 0 ? "upserted" : "deleted") + "\",\"ts\":\"2026-12-07T18:00:00Z\",\"record_id\":\"" + tenant
                    + "/m" + i + "\"}";
            producer.send(new ProducerRecord<>(Topics.CHANGES, tenant, json));
            changes.add(ResponsesJson.JSON.readTree(json));
        }
        producer.flush();
        return changes;
    }

    private static List<String> ids(List<JsonNode> changes, String kind) {
        return changes.stream().filter(c -> kind == null || c.get("kind").asText().equals(kind))
                .map(c -> c.get("change_id").asText()).toList();
    }

    /** Polls {@code condition} until it holds; fails after a minute (never asserting on how long it took). */
    static void await(String what, Callable<Boolean> condition) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!condition.call()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("waited a minute for " + what);
            }
            java.util.concurrent.TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    /** Every request's signature checks with the webhook's secret, computed here with javax.crypto. */
    private void assertSigned(String path, String secret) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        List<WebhookReceiver.Received> requests = receiver.received.stream().filter(r -> r.path().equals(path)).toList();
        assertThat(requests).isNotEmpty();
        for (WebhookReceiver.Received r : requests) {
            String expected = HexFormat.of().formatHex(mac.doFinal((r.timestamp() + "." + r.body())
                    .getBytes(StandardCharsets.UTF_8)));
            assertThat(r.signature()).isEqualTo("v1=" + expected);
            assertThat(ResponsesJson.JSON.readTree(r.body()).get("change_id").asText()).isEqualTo(r.changeId());
        }
    }

    @Test
    void everyChangeIsDeliveredOnceInItsTenantsOrderThroughRefusalsAndAnOutage() throws Exception {
        String acme = tenant();
        String globex = tenant();
        WebhookStore.Registered all = register(acme, "/acme", null);
        WebhookStore.Registered deletes = register(globex, "/globex", "[\"deleted\"]");
        AtomicInteger refusals = new AtomicInteger(2);
        receiver.answer = path -> refusals.getAndDecrement() > 0 ? 503 : 200;
        receiver.answerMillis = 5;
        List<JsonNode> acmeChanges = new ArrayList<>(publish(acme, 30));
        List<JsonNode> globexChanges = publish(globex, 30);
        dispatcher("webhooks-" + UUID.randomUUID(), 1000);

        await("10 of acme's changes", () -> receiver.acknowledged("/acme").size() >= 10);
        receiver.stop();
        acmeChanges.addAll(publish(acme, 10));
        String webhookId = all.webhook().webhookId();
        await("3 refused connections", () -> store.deliveries(webhookId, 1000).stream()
                .filter(a -> a.error() != null && a.error().startsWith("cannot connect to " + receiver.url("/acme")))
                .count() >= 3);
        receiver.restart();
        await("every change", () -> receiver.acknowledged("/acme").size() >= 40
                && receiver.acknowledged("/globex").size() >= 15);

        assertThat(receiver.acknowledged("/acme")).as("each once, in order").isEqualTo(ids(acmeChanges, null));
        assertThat(receiver.acknowledged("/globex")).as("the kinds it asked for").isEqualTo(ids(globexChanges, "deleted"));
        assertThat(receiver.received.stream().filter(r -> r.status() == 503)).hasSize(2);
        assertSigned("/acme", all.webhook().secret());
        assertSigned("/globex", deletes.webhook().secret());
        for (WebhookReceiver.Received r : receiver.received) {
            JsonNode body = ResponsesJson.JSON.readTree(r.body());
            JsonNode sent = (r.path().equals("/acme") ? acmeChanges : globexChanges).stream()
                    .filter(c -> c.get("change_id").asText().equals(r.changeId())).findFirst().orElseThrow();
            assertThat(body).as("the change as published").isEqualTo(sent);
        }
        await("the last delivery recorded", () -> store.find(webhookId).orElseThrow().state().pending() == 0);
        WebhookStore.State state = store.find(webhookId).orElseThrow().state();
        assertThat(state.pause()).isNull();
        assertThat(state.failuresInRow()).isZero();
        List<String> logged = new ArrayList<>(store.deliveries(webhookId, 1000).stream()
                .filter(WebhookStore.Attempt::delivered).map(WebhookStore.Attempt::changeId).toList());
        java.util.Collections.reverse(logged);
        assertThat(logged).as("the log, newest first").isEqualTo(ids(acmeChanges, null));
    }

    @Test
    void aReceiverThatKeepsFailingGetsItsWebhookPausedWithTheReasonAndResumeDeliversTheRest() throws Exception {
        String acme = tenant();
        WebhookStore.Registered registered = register(acme, "/failing", null);
        String webhookId = registered.webhook().webhookId();
        receiver.answer = path -> 500;
        List<JsonNode> changes = new ArrayList<>(publish(acme, 5));
        dispatcher("webhooks-" + UUID.randomUUID(), 3);

        await("the webhook paused", () -> store.find(webhookId).orElseThrow().state().pause() != null);
        WebhookStore.State paused = store.find(webhookId).orElseThrow().state();
        assertThat(paused.pause().reason()).isEqualTo("HTTP 500 from " + receiver.url("/failing"));
        assertThat(paused.failuresInRow()).isEqualTo(3);
        assertThat(paused.pending()).as("its queue kept").isEqualTo(5);
        String first = changes.get(0).get("change_id").asText();
        assertThat(store.deliveries(webhookId, 10)).extracting(a -> a.changeId() + " " + a.attempt() + " " + a.status())
                .containsExactly(first + " 3 500", first + " 2 500", first + " 1 500");
        changes.addAll(publish(acme, 2));
        await("the changes published while paused queued", () -> store.find(webhookId).orElseThrow().state().pending() == 7);

        receiver.answer = path -> 204;
        assertThat(webhooks.resume(acme, webhookId).state().pause()).isNull();
        await("the rest delivered", () -> receiver.acknowledged("/failing").size() >= 7);
        assertThat(receiver.acknowledged("/failing")).isEqualTo(ids(changes, null));
        assertThat(receiver.received.stream().filter(r -> r.status() == 500)).as("nothing sent while paused").hasSize(3);
        await("the last delivery recorded", () -> store.find(webhookId).orElseThrow().state().pending() == 0);
        assertThat(store.deliveries(webhookId, 1000)).filteredOn(a -> a.changeId().equals(first))
                .extracting(WebhookStore.Attempt::attempt).containsExactly(4, 3, 2, 1);
        assertSigned("/failing", registered.webhook().secret());
    }

    @Test
    void aDispatcherClosedMidStreamAndReplacedLosesNothingAndResendsNothingAcknowledged() throws Exception {
        String acme = tenant();
        WebhookStore.Registered registered = register(acme, "/stream", null);
        receiver.answerMillis = 5;
        List<JsonNode> changes = new ArrayList<>(publish(acme, 150));
        String group = "webhooks-" + UUID.randomUUID();
        WebhookDispatcher first = dispatcher(group, 1000);
        await("20 changes", () -> receiver.acknowledged("/stream").size() >= 20);
        first.close();
        int atClose = receiver.acknowledged("/stream").size();
        assertThat(atClose).as("closed mid-stream").isLessThan(150);

        changes.addAll(publish(acme, 10));
        dispatcher(group, 1000);
        await("every change", () -> receiver.acknowledged("/stream").size() >= 160);
        // a dispatcher whose group lost its offsets reads the whole feed again, as after a crash before a commit;
        // it and the one before send the same webhook at once, as two replicas would, one at a time by its lease
        changes.addAll(publish(acme, 5));
        dispatcher("webhooks-" + UUID.randomUUID(), 1000);
        await("the changes after it", () -> receiver.acknowledged("/stream").size() >= 165);
        await("the last delivery recorded", () -> store.find(registered.webhook().webhookId()).orElseThrow().state()
                .pending() == 0);

        assertThat(receiver.acknowledged("/stream")).as("each once, in order").isEqualTo(ids(changes, null));
        assertThat(receiver.received).as("no refusal: nothing acknowledged was sent again").hasSize(165);
        assertSigned("/stream", registered.webhook().secret());
    }
}
