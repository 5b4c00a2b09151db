package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.client.EngramProducer;
import io.engram.client.Payload;
import io.engram.client.PayloadKind;
import io.engram.client.Topics;
import io.engram.jobs.pipeline.EndToEndInput;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
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
 * command (a restored Kafka source keeps the bounds it was started with); it is stopped once it has read and
 * checkpointed everything, and the failure-free run reads the same records to their end.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class RunCrashTest {

    private static final Instant T0 = Instant.parse("2026-11-28T09:00:00Z");
    private static final List<String> TENANTS = List.of("crash-a", "crash-b");
    private static final String END = "crash-end";
    private static final Duration PATIENCE = Duration.ofMinutes(3);

    @TempDir
    Path dir;

    /** Polls while the run process lives; its death fails at once. */
    private static void await(String what, Process process, Polling.Check check) throws Exception {
        Polling.await(what, PATIENCE, () -> {
            if (!process.isAlive()) {
                throw new AssertionError(what + ": the run exited with " + process.exitValue());
            }
            return check.holds();
        });
    }

    /** Two tenants: a 60-turn session each and gateway memories in six cycles, in event-time order. */
    private static List<Payload> input() {
        List<Payload> records = new ArrayList<>();
        String[] topics = {"the quarterly budget review", "migrating the billing service", "hiring a data engineer",
                "the office move to the harbour building", "renewing the cloud contract", "the staging restore"};
        for (int i = 0; i < 60; i++) {
            for (String tenant : TENANTS) {
                records.add(Payload.turn(tenant, "s1", "u1", "t" + i, i, i % 2 == 0 ? "user" : "assistant",
                        (i % 2 == 0 ? "Can you help me with " : "Here is my plan for ") + topics[(i / 2) % topics.length]
                                + " (" + tenant + " " + i + ")?", T0.plusSeconds(60L * i)));
                if (i % 2 == 0) {
                    int cycle = i / 10;
                    records.add(Payload.memory(tenant, "m" + i, i % 4 == 0 ? "memory" : "lesson", "Note " + i + " of "
                            + tenant + ": " + topics[i % topics.length] + " is on track.", List.of(), 0, "c" + cycle,
                            T0.plusSeconds(60L * i + 30)));
                }
            }
        }
        return records;
    }

    private Path config(String name, EmbeddedKafka kafka, EmbeddedOpenSearch openSearch, EmbeddedPostgreSql postgres,
                        boolean bounded, long sentFrom) throws Exception {
        Path file = dir.resolve(name + "-" + bounded + ".properties");
        Files.writeString(file, String.join("\n",
                "kafka.bootstrap=" + kafka.bootstrapServers(),
                "kafka.group=" + name,
                "kafka.bounded=" + bounded,
                "kafka.starting-offsets=timestamp:" + sentFrom,
                "kafka.transactional-id-prefix=" + name,
                "opensearch.url=" + openSearch.httpUrl(),
                "opensearch.index=engram-memories-" + name,
                "postgres.url=" + postgres.jdbcUrl(),
                "postgres.user=postgres",
                "checkpoint.interval=1s",
                "watermark.idleness=1h",
                "state.dir=" + dir.resolve("state-" + name)));
        return file;
    }

    /**
     * A record a day later on every partition of every input topic, of a tenant not compared: event time passes
     * everything before it, in the killed and restarted run as in the run that reads to the end.
     */
    private static void sendTheEnd(EmbeddedKafka kafka) throws Exception {
        Instant end = T0.plus(Duration.ofDays(1));
        Properties raw = new Properties();
        raw.put("bootstrap.servers", kafka.bootstrapServers());
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(raw, new StringSerializer(),
                new ByteArraySerializer())) {
            for (String topic : Topics.INPUTS) {
                for (PartitionInfo partition : producer.partitionsFor(topic)) {
                    int p = partition.partition();
                    Payload last = switch (PayloadKind.ofTopic(topic)) {
                        case TURN -> Payload.turn(END, "s" + p, "u", "t", 0, "user", "The end.", end);
                        case DOC -> Payload.doc(END, "a", "END-" + p + ".md", "core", 1, "# End\n\nThe end.\n", end);
                        case MEMORY -> Payload.memory(END, "m" + p, "memory", "The end.", List.of(), 0, null, end);
                        case FORGET -> Payload.forget(END, "f" + p, "user", "nobody", end);
                    };
                    producer.send(new ProducerRecord<>(topic, p, last.key(), last.bytes())).get();
                }
            }
        }
    }

    /** {@code ./engram run --config FILE} as a process of its own, on this JVM's classpath. */
    private Process run(Path config, String log) throws Exception {
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g",
                "-cp", System.getProperty("java.class.path"), EngramCli.class.getName(), "run", "--config",
                config.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve(log).toFile()).start();
    }

    /** The turns and gateway memories indexed so far; 0 while the job has not created the index. */
    private static long indexed(OpenSearchMemoryStore store) {
        try {
            return count(store, Set.of(RecordType.TURN, RecordType.MEMORY, RecordType.LESSON));
        } catch (RuntimeException e) {
            return 0;
        }
    }

    private static long count(OpenSearchMemoryStore store, Set<RecordType> types) {
        store.refresh();
        return TENANTS.stream().mapToLong(t -> store.count(t, types)).sum();
    }

    @Test
    void aRunKilledMidStreamResumesFromItsCheckpointAndChangesNothing(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch,
                                                                      EmbeddedPostgreSql postgres) throws Exception {
        Topics.create(io.engram.client.KafkaClients.at(kafka.bootstrapServers()), 2);
        long sentFrom = System.currentTimeMillis();
        List<Payload> input = input();
        int firstPart = input.size() * 6 / 10;
        try (EngramProducer producer = new EngramProducer(kafka.bootstrapServers())) {
            input.subList(0, firstPart).forEach(producer::send);
            producer.flush();
        }
        long firstTurnsAndMemories = input.subList(0, firstPart).size();

        Path crashing = config("crash-run", kafka, openSearch, postgres, false, sentFrom);
        Path checkpoints = dir.resolve("state-crash-run").resolve("crash-run");
        Process first = run(crashing, "first.log");
        Map<String, List<String>> crashed;
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearch.httpUrl(), "engram-memories-crash-run",
                RetryPolicy.DEFAULT)) {
            await("the first part written", first, () -> indexed(store) == firstTurnsAndMemories);
            Optional<Path> before = LocalPipeline.latestCheckpoint(checkpoints);
            await("a checkpoint after the first part", first,
                    () -> !LocalPipeline.latestCheckpoint(checkpoints).equals(before));
            try (EngramProducer producer = new EngramProducer(kafka.bootstrapServers())) {
                input.subList(firstPart, input.size()).forEach(producer::send);
                producer.flush();
            }
            sendTheEnd(kafka);
            await("some of the rest written", first, () -> indexed(store) > firstTurnsAndMemories);
            assertThat(count(store, Set.of(RecordType.SUMMARY))).as("nothing compacted before the end of the input")
                    .isZero();
            first.destroyForcibly().waitFor(); // SIGKILL: no shutdown hook, no final checkpoint
            assertThat(first.exitValue()).isEqualTo(137);

            // the same command again: it resumes, reads the rest and the day-later records, and is stopped once
            // everything is read and checkpointed
            Process second = run(crashing, "second.log");
            try {
                await("the restarted run read everything", second, () -> InputOffsets.committed(kafka.bootstrapServers(),
                        "crash-run").equals(InputOffsets.end(kafka.bootstrapServers())));
                Optional<Path> read = LocalPipeline.latestCheckpoint(checkpoints);
                await("a checkpoint after the last record", second,
                        () -> !LocalPipeline.latestCheckpoint(checkpoints).equals(read));
            } finally {
                second.destroyForcibly().waitFor();
            }
            assertThat(Files.readString(dir.resolve("second.log"))).contains("restoring the state of checkpoint "
                    + checkpoints.toAbsolutePath());
            crashed = EndToEndInput.snapshot(store, TENANTS);
        }
        Map<String, List<String>> crashedRows = EndToEndInput.takeRows(postgres, TENANTS);

        CliRun plain = CliRun.of("run", "--config", config("plain-run", kafka, openSearch, postgres, true, sentFrom)
                .toString()); // to the end of the same records
        assertThat(plain.out()).contains("no checkpoint in ");
        assertThat(plain.exit()).as(plain.err()).isZero();
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearch.httpUrl(), "engram-memories-plain-run",
                RetryPolicy.DEFAULT)) {
            Map<String, List<String>> expected = EndToEndInput.snapshot(store, TENANTS);
            assertThat(expected.get("crash-a")).as("summaries were written").anyMatch(l -> l.contains("|summary|"));
            EndToEndInput.assertSame(crashed, expected);
        }
        Map<String, List<String>> expectedRows = EndToEndInput.takeRows(postgres, TENANTS);
        assertThat(expectedRows.get("cycle_metrics")).as("cycles closed").hasSizeGreaterThan(4);
        // canary scores included: a cycle closed again after the restore ranks against the restored shape, not
        // against what OpenSearch received from the killed run after its checkpoint
        EndToEndInput.assertSame(crashedRows, expectedRows);
    }
}
