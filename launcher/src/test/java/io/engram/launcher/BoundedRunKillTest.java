package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.client.EngramProducer;
import io.engram.client.KafkaClients;
import io.engram.client.Payload;
import io.engram.client.Topics;
import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.EmbeddedServicesExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bounded {@code ./engram run} killed with SIGKILL and started again with the same command ends, exit 0, with
 * the OpenSearch documents and PostgreSQL rows of a bounded run that never died ({@link CrashRuns.Outcome}).
 * Killed at three points, each restart restoring what the kill before it left: before its first checkpoint (records
 * written, nothing checkpointed); after a checkpoint mid-input (the rest of the input waits in an open Kafka
 * transaction, which a {@code read_committed} reader cannot pass, so that point holds still); and after a
 * checkpoint in which one of the two source subtasks had read every split it owns to its end offset and
 * finished, the other waiting on a last transaction. (A bounded run draining an unbounded run's state is
 * {@link RunCrashTest}'s.) The run that never dies runs with parallelism 1, the killed one with 2.
 * <p>
 * Event time stands still until every record is read, in every run: one partition's only record is a day later
 * and held back in the last transaction ({@link #THE_END}), so summaries and cycle closes never depend on how far
 * a stalled or killed run had read — as in the run that never dies, where that record is released once the rest
 * is read.
 */
@ExtendWith(EmbeddedServicesExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BoundedRunKillTest {

    /**
     * The first checkpoint of the killed runs waits this long after the job starts (checkpoint.interval and the
     * minimum pause alike), long enough for records to be written before it.
     */
    private static final String SLOW_FIRST_CHECKPOINT = "10s";
    /** The partition whose only record, a day later, comes last. */
    private static final TopicPartition THE_END = new TopicPartition(Topics.FORGETS, 0);

    @TempDir
    static Path dir;
    private CrashRuns.Outcome uninterrupted;

    @BeforeAll
    void aRunThatNeverDies(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch, EmbeddedPostgreSql postgres) throws Exception {
        Topics.create(KafkaClients.at(kafka.bootstrapServers()), 2);
        long sentFrom = System.currentTimeMillis();
        Map<TopicPartition, Long> read = send(kafka, CrashRuns.input());
        try (KafkaProducer<String, byte[]> end = transaction(kafka, "the-end", List.of(theEnd()))) {
            Path config = CrashRuns.config(dir, "bounded-plain", kafka, openSearch, postgres, true, sentFrom,
                    "parallelism=1");
            CompletableFuture<CliRun> run = CompletableFuture.supplyAsync(() -> CliRun.of("run", "--config", config.toString()));
            Polling.await("the input read", CrashRuns.PATIENCE, () -> committedAt(kafka, "bounded-plain", read, tp -> true));
            end.commitTransaction();
            CliRun ended = run.get(CrashRuns.PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertThat(ended.exit()).as(ended.err()).isZero();
        }
        uninterrupted = CrashRuns.Outcome.take(openSearch, "bounded-plain", postgres, kafka, Instant.ofEpochMilli(sentFrom));
    }

    @Test
    void aBoundedRunKilledAtThreePointsEndsAsARunThatNeverDied(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch,
                                                              EmbeddedPostgreSql postgres) throws Exception {
        long sentFrom = System.currentTimeMillis();
        List<Payload> input = CrashRuns.input();
        List<Payload> rest = input.subList(input.size() * 6 / 10, input.size());
        Map<TopicPartition, Long> firstPart = send(kafka, input.subList(0, input.size() - rest.size()));
        Path config = CrashRuns.config(dir, "bounded-killed", kafka, openSearch, postgres, true, sentFrom, "parallelism=2",
                "checkpoint.interval=" + SLOW_FIRST_CHECKPOINT, "flink.execution.checkpointing.min-pause=" + SLOW_FIRST_CHECKPOINT);
        Path checkpoints = CrashRuns.checkpoints(dir, "bounded-killed");
        try (KafkaProducer<String, byte[]> held = transaction(kafka, "held", rest.stream().map(BoundedRunKillTest::record).toList());
             KafkaProducer<String, byte[]> heldLast = transaction(kafka, "held-last", List.of(theEnd()))) {
            Process first = CrashRuns.run(config, dir.resolve("first.log"));
            CrashRuns.await("records written", first, () -> CrashRuns.indexed(openSearch, "bounded-killed") > 0);
            assertThat(LocalPipeline.latestCheckpoint(checkpoints)).as("killed before its first checkpoint").isEmpty();
            CrashRuns.kill(first);

            Process second = CrashRuns.run(config, dir.resolve("second.log"));
            CrashRuns.await("the first part read and checkpointed", second,
                    () -> committedAt(kafka, "bounded-killed", firstPart, tp -> true));
            CrashRuns.kill(second);
            Map<TopicPartition, Long> allButTheEnd = InputOffsets.end(KafkaClients.at(kafka.bootstrapServers()));
            held.commitTransaction(); // its commit markers come after the offsets its records end at

            // the subtask that does not read THE_END reads the rest to the end of every split it owns, and finishes
            Process third = CrashRuns.run(config, dir.resolve("third.log"));
            CrashRuns.await("all but the last transaction read and checkpointed", third,
                    () -> committedAt(kafka, "bounded-killed", allButTheEnd, tp -> !tp.equals(THE_END)));
            CrashRuns.kill(third);
            heldLast.commitTransaction();
        }
        CrashRuns.assertEnds(CrashRuns.run(config, dir.resolve("fourth.log")), dir.resolve("fourth.log"));

        assertThat(Files.readString(dir.resolve("second.log"))).contains("no checkpoint in " + checkpoints.toAbsolutePath());
        for (String restarted : List.of("third.log", "fourth.log")) {
            assertThat(Files.readString(dir.resolve(restarted))).contains("restoring the state of checkpoint "
                    + checkpoints.toAbsolutePath());
        }
        CrashRuns.Outcome.take(openSearch, "bounded-killed", postgres, kafka, Instant.ofEpochMilli(sentFrom))
                .assertSameAs(uninterrupted);
    }

    /** Whether {@code group} has committed {@code offsets} on every partition {@code of} that holds records. */
    private static boolean committedAt(EmbeddedKafka kafka, String group, Map<TopicPartition, Long> offsets,
                                       Predicate<TopicPartition> of) throws Exception {
        Map<TopicPartition, Long> committed = InputOffsets.committed(KafkaClients.at(kafka.bootstrapServers()), group);
        return offsets.entrySet().stream().filter(e -> e.getValue() > 0 && of.test(e.getKey()))
                .allMatch(e -> committed.getOrDefault(e.getKey(), -1L).equals(e.getValue()));
    }

    /** Sends the records as the gateway does; returns where the input topics end then. */
    private static Map<TopicPartition, Long> send(EmbeddedKafka kafka, List<Payload> records) throws Exception {
        try (EngramProducer producer = new EngramProducer(kafka.bootstrapServers())) {
            records.forEach(producer::send);
            producer.flush();
        }
        return InputOffsets.end(KafkaClients.at(kafka.bootstrapServers()));
    }

    private static ProducerRecord<String, byte[]> record(Payload payload) {
        return new ProducerRecord<>(payload.kind().topic(), payload.key(), payload.bytes());
    }

    private static ProducerRecord<String, byte[]> theEnd() {
        return CrashRuns.dayLater(THE_END.topic(), THE_END.partition());
    }

    /** The records sent in a transaction left open: a {@code read_committed} reader stops before them until it commits. */
    private static KafkaProducer<String, byte[]> transaction(EmbeddedKafka kafka, String id,
                                                             List<ProducerRecord<String, byte[]>> records) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrapServers());
        p.put("transactional.id", id + "-" + System.nanoTime());
        p.put("transaction.timeout.ms", "600000");
        KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
        producer.initTransactions();
        producer.beginTransaction();
        for (ProducerRecord<String, byte[]> record : records) {
            producer.send(record).get();
        }
        return producer;
    }
}
