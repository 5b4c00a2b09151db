package io.engram.client;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** The Kafka topics of Engram's contract (docs/contracts.md, "Contracts"). */
public final class Topics {

    public static final String TURNS = "engram.turns.v1";
    public static final String DOCS = "engram.docs.v1";
    public static final String MEMORIES = "engram.memories.v1";
    public static final String FORGETS = "engram.forgets.v1";
    public static final String REJECTS = "engram.rejects.v1";
    public static final String ALERTS = "engram.alerts.v1";
    public static final String CHANGES = "engram.changes.v1";

    /** Every topic, inputs first. */
    public static final List<String> ALL = List.of(TURNS, DOCS, MEMORIES, FORGETS, REJECTS, ALERTS, CHANGES);
    /** The inputs the pipeline reads. */
    public static final List<String> INPUTS = List.of(TURNS, DOCS, MEMORIES, FORGETS);

    /**
     * Records up to this size are accepted on the documents and rejects topics (a document may be 8 MiB, and a
     * reject carries its original in base64); the broker default of 1 MiB would refuse them at produce time.
     */
    public static final int LARGE_RECORD_BYTES = 16 * 1024 * 1024;

    private Topics() {
    }

    /**
     * Creates the topics that are missing, {@code partitions} each, replication factor 1, and returns once the
     * cluster describes them all: a topic just created is not known to every broker at once, and a client that
     * looks it up meanwhile (a bounded source listing its partitions once) would take it for absent.
     */
    public static void create(KafkaClients kafka, int partitions) {
        try (Admin admin = Admin.create(kafka.config())) {
            for (String topic : ALL) {
                NewTopic spec = new NewTopic(topic, partitions, (short) 1);
                if (topic.equals(DOCS) || topic.equals(REJECTS)) {
                    spec.configs(Map.of("max.message.bytes", String.valueOf(LARGE_RECORD_BYTES)));
                }
                try {
                    admin.createTopics(List.of(spec)).all().get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("cannot create topic " + topic, e.getCause());
                    }
                }
            }
            awaitDescribed(admin);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("kafka did not create the topics in time", e);
        }
    }

    private static void awaitDescribed(Admin admin) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                admin.describeTopics(ALL).allTopicNames().get(30, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
                    throw new IllegalStateException("kafka does not describe the topics it created", e.getCause());
                }
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
    }
}
