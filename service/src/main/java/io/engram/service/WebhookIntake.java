package io.engram.service;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.client.KafkaClients;
import io.engram.client.Topics;
import java.io.IOException;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the change feed ({@link Topics#CHANGES}, committed changes only) into the webhooks' queues: each poll's
 * changes are queued in one transaction, then the consumer's offsets are committed. A crash between the two reads
 * the changes again, and queuing them again adds nothing, so no change is lost or queued twice.
 */
final class WebhookIntake implements Runnable, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WebhookIntake.class);
    private static final Duration RETRY = Duration.ofSeconds(1);

    private final KafkaConsumer<String, String> consumer;
    private final WebhookStore store;
    private final Clock clock;
    private volatile boolean closed;

    WebhookIntake(KafkaClients kafka, String group, WebhookStore store, Clock clock) {
        Properties config = kafka.config();
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // a new group starts at the oldest change kept: a change published before the first start is not skipped
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        this.consumer = new KafkaConsumer<>(config);
        this.store = store;
        this.clock = clock;
        consumer.subscribe(List.of(Topics.CHANGES));
    }

    @Override
    public void run() {
        try (consumer) {
            while (!closed) {
                try {
                    ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
                    if (!records.isEmpty()) {
                        take(records);
                    }
                } catch (WakeupException e) {
                    // only close() wakes the consumer: the loop ends
                } catch (KafkaException e) {
                    LOG.error("webhooks: reading the change feed failed; reading again in {}", RETRY, e);
                    Thread.sleep(RETRY.toMillis());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Queues the records' changes and commits past them; when PostgreSQL fails, reads them again after a pause. */
    private void take(ConsumerRecords<String, String> records) throws InterruptedException {
        List<WebhookStore.Change> changes = new ArrayList<>();
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        for (ConsumerRecord<String, String> r : records) {
            change(r).ifPresent(changes::add);
            next.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
        }
        try {
            store.enqueue(changes, clock.instant());
        } catch (SQLException e) {
            LOG.warn("webhooks: queuing {} changes failed; reading them again in {}", changes.size(), RETRY, e);
            records.partitions().forEach(p -> consumer.seek(p, records.records(p).get(0).offset()));
            Thread.sleep(RETRY.toMillis());
            return;
        }
        try {
            consumer.commitSync(next);
        } catch (WakeupException e) {
            throw e;
        } catch (KafkaException e) {
            // a rebalance took the partitions: their next reader queues these changes again, which adds nothing
            LOG.warn("webhooks: committing the change feed's offsets failed: {}", e.toString());
        }
    }

    /** The change a record holds; a record that is not a change.v1 message is logged and passed over. */
    static Optional<WebhookStore.Change> change(ConsumerRecord<String, String> r) {
        try {
            JsonNode json = ResponsesJson.JSON.readTree(r.value() == null ? "" : r.value());
            JsonNode id = json == null ? null : json.get("change_id");
            JsonNode tenant = json == null ? null : json.get("tenant_id");
            JsonNode kind = json == null ? null : json.get("kind");
            if (id != null && id.isTextual() && tenant != null && tenant.isTextual() && kind != null && kind.isTextual()) {
                return Optional.of(new WebhookStore.Change(r.partition(), r.offset(), tenant.asText(), id.asText(),
                        kind.asText(), r.value()));
            }
        } catch (IOException e) {
            // the warning below
        }
        LOG.warn("webhooks: {}-{} offset {} is not a change.v1 message (change_id, tenant_id, kind); passed over",
                r.topic(), r.partition(), r.offset());
        return Optional.empty();
    }

    /** Stops reading; a poll or commit under way is cut short (its changes are read again by the next reader). */
    @Override
    public void close() {
        closed = true;
        consumer.wakeup();
    }
}
