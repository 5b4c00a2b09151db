package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.client.EngramProducer;
import io.engram.client.KafkaClients;
import io.engram.client.Payload;
import io.engram.client.Topics;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./engram run} killed with SIGKILL mid-stream and started again: it restores its newest checkpoint from
 * {@code state.dir} and ends with exactly the OpenSearch documents and the PostgreSQL rows (canary scores
 * included) of a run that never failed. The first 60 % of the input is read and checkpointed, the rest is sent,
 * some of it is written, then the process dies. Event time moves only once every input partition has a record (no idleness here), which
 * the input's last records, a day later, give all of them: until then nothing is compacted, so the turns read
 * before the crash live on only in the checkpointed compaction state. The restarted run is the same unbounded
 * command; it is stopped once it has read and checkpointed everything, and a bounded run then drains its state
 * (an unbounded run's state restored by a bounded run ends at the end offsets it finds). The failure-free run reads
 * the same records to their end.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class RunCrashTest {

    @TempDir
    Path dir;

    /** {@link CrashRuns#dayLater} on every partition of every input topic. */
    private static void sendTheEnd(EmbeddedKafka kafka) throws Exception {
        Properties raw = new Properties();
        raw.put("bootstrap.servers", kafka.bootstrapServers());
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(raw, new StringSerializer(),
                new ByteArraySerializer())) {
            for (String topic : Topics.INPUTS) {
                for (PartitionInfo partition : producer.partitionsFor(topic)) {
                    producer.send(CrashRuns.dayLater(topic, partition.partition())).get();
                }
            }
        }
    }

    private static long count(OpenSearchMemoryStore store, Set<RecordType> types) {
        store.refresh();
        return CrashRuns.TENANTS.stream().mapToLong(t -> store.count(t, types)).sum();
    }

    @Test
    void aRunKilledMidStreamResumesFromItsCheckpointAndChangesNothing(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch,
                                                                      EmbeddedPostgreSql postgres) throws Exception {
        Topics.create(KafkaClients.at(kafka.bootstrapServers()), 2);
        long sentFrom = System.currentTimeMillis();
        List<Payload> input = CrashRuns.input();
        int firstPart = input.size() * 6 / 10;
        try (EngramProducer producer = new EngramProducer(kafka.bootstrapServers())) {
            input.subList(0, firstPart).forEach(producer::send);
            producer.flush();
        }
        long firstTurnsAndMemories = input.subList(0, firstPart).size();

        Path crashing = CrashRuns.config(dir, "crash-run", kafka, openSearch, postgres, false, sentFrom);
        Path checkpoints = CrashRuns.checkpoints(dir, "crash-run");
        Process first = CrashRuns.run(crashing, dir.resolve("first.log"));
        CrashRuns.await("the first part written", first, () -> CrashRuns.indexed(openSearch, "crash-run") == firstTurnsAndMemories);
        Optional<Path> before = LocalPipeline.latestCheckpoint(checkpoints);
        CrashRuns.await("a checkpoint after the first part", first,
                () -> !LocalPipeline.latestCheckpoint(checkpoints).equals(before));
        try (EngramProducer producer = new EngramProducer(kafka.bootstrapServers())) {
            input.subList(firstPart, input.size()).forEach(producer::send);
            producer.flush();
        }
        sendTheEnd(kafka);
        CrashRuns.await("some of the rest written", first, () -> CrashRuns.indexed(openSearch, "crash-run") > firstTurnsAndMemories);
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearch.httpUrl(), CrashRuns.index("crash-run"),
                RetryPolicy.DEFAULT)) {
            assertThat(count(store, Set.of(RecordType.SUMMARY))).as("nothing compacted before the end of the input").isZero();
        }
        CrashRuns.kill(first);

        // the same command again: it resumes, reads the rest and the day-later records, and is stopped once
        // everything is read and checkpointed
        Process second = CrashRuns.run(crashing, dir.resolve("second.log"));
        try {
            CrashRuns.await("the restarted run read everything", second, () -> InputOffsets.committed(
                    KafkaClients.at(kafka.bootstrapServers()), "crash-run").equals(InputOffsets.end(KafkaClients.at(kafka.bootstrapServers()))));
            Optional<Path> read = LocalPipeline.latestCheckpoint(checkpoints);
            CrashRuns.await("a checkpoint after the last record", second,
                    () -> !LocalPipeline.latestCheckpoint(checkpoints).equals(read));
        } finally {
            second.destroyForcibly().waitFor();
        }
        assertThat(Files.readString(dir.resolve("second.log"))).contains("restoring the state of checkpoint "
                + checkpoints.toAbsolutePath());
        // "drain what is left, then stop": a bounded run restoring the unbounded run's state reads to the end offsets
        // it finds, ends the input (nothing of the compared tenants waits for that: the day-later records moved
        // event time past it all) and exits
        CliRun drain = CliRun.of("run", "--config", CrashRuns.config(dir, "crash-run", kafka, openSearch, postgres, true,
                sentFrom).toString());
        assertThat(drain.exit()).as(drain.err()).isZero();
        assertThat(drain.out()).contains("restoring the state of checkpoint " + checkpoints.toAbsolutePath(),
                "the state is an unbounded run's", "the bounded run ended: 0 records read by this run");
        CrashRuns.Outcome crashed = CrashRuns.Outcome.take(openSearch, "crash-run", postgres, kafka,
                Instant.ofEpochMilli(sentFrom));

        Instant plainStarted = Instant.now();
        CliRun plain = CliRun.of("run", "--config", CrashRuns.config(dir, "plain-run", kafka, openSearch, postgres, true,
                sentFrom).toString()); // to the end of the same records
        assertThat(plain.out()).contains("no checkpoint in ");
        assertThat(plain.exit()).as(plain.err()).isZero();
        // canary scores included: a cycle closed again after the restore ranks against the restored shape, not
        // against what OpenSearch received from the killed run after its checkpoint
        crashed.assertSameAs(CrashRuns.Outcome.take(openSearch, "plain-run", postgres, kafka, plainStarted));
    }
}
