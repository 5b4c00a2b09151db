package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.client.Payload;
import io.engram.client.PayloadKind;
import io.engram.jobs.pipeline.ChangeFeedChecks;
import io.engram.jobs.pipeline.EndToEndInput;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * What the tests that kill {@code ./engram run} share: the input (two tenants whose turns are compacted and whose
 * memories close cycles), the settings file of a run, the run as a process of its own, and the comparison of
 * what a run left — every OpenSearch document and every PostgreSQL row of the tenants — with a run that never died.
 */
final class CrashRuns {

    static final Instant T0 = Instant.parse("2026-11-28T09:00:00Z");
    static final List<String> TENANTS = List.of("crash-a", "crash-b");
    static final Duration PATIENCE = Duration.ofMinutes(3);

    private CrashRuns() {
    }

    /**
     * Two tenants: a 60-turn session each and gateway memories in six cycles, in event-time order, each the newest
     * of its topic's key (three chains of ten per tenant).
     */
    static List<Payload> input() {
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
                    Payload memory = Payload.memory(tenant, "m" + i, i % 4 == 0 ? "memory" : "lesson", "Note " + i
                            + " of " + tenant + ": " + topics[i % topics.length] + " is on track.", List.of(), 0,
                            "c" + cycle, T0.plusSeconds(60L * i + 30));
                    // each topic's newer note supersedes the one before (supersession is in the writer's state)
                    memory.json().put("user_id", "u1").put("key", "status." + (i % topics.length));
                    records.add(memory);
                }
            }
        }
        return records;
    }

    /** The tenant of {@link #dayLater}'s records, never compared. */
    static final String END = "crash-end";

    /**
     * A record a day after the input, for one partition of an input topic, of a tenant not compared: read after the
     * rest, it moves event time past everything before it.
     */
    static ProducerRecord<String, byte[]> dayLater(String topic, int partition) {
        Instant end = T0.plus(Duration.ofDays(1));
        Payload last = switch (PayloadKind.ofTopic(topic)) {
            case TURN -> Payload.turn(END, "s" + partition, "u", "t", 0, "user", "The end.", end);
            case DOC -> Payload.doc(END, "a", "END-" + partition + ".md", "core", 1, "# End\n\nThe end.\n", end);
            case MEMORY -> Payload.memory(END, "m" + partition, "memory", "The end.", List.of(), 0, null, end);
            case FORGET -> Payload.forget(END, "f" + partition, "user", "nobody", end);
        };
        return new ProducerRecord<>(topic, partition, last.key(), last.bytes());
    }

    /**
     * The settings of a run named {@code name} (its group, transactional ids, index and state of its own) reading
     * what was sent from {@code sentFrom} on; {@code more} are further {@code key=value} lines.
     */
    static Path config(Path dir, String name, EmbeddedKafka kafka, EmbeddedOpenSearch openSearch,
                       EmbeddedPostgreSql postgres, boolean bounded, long sentFrom, String... more) throws Exception {
        Path file = dir.resolve(name + "-" + bounded + ".properties");
        Files.writeString(file, String.join("\n", Stream.concat(Stream.of(
                "kafka.bootstrap=" + kafka.bootstrapServers(),
                "kafka.group=" + name,
                "kafka.bounded=" + bounded,
                "kafka.starting-offsets=timestamp:" + sentFrom,
                "kafka.transactional-id-prefix=" + name,
                "opensearch.url=" + openSearch.httpUrl(),
                "opensearch.index=" + index(name),
                "postgres.url=" + postgres.jdbcUrl(),
                "postgres.user=postgres",
                "checkpoint.interval=1s",
                "watermark.idleness=1h",
                "state.dir=" + dir.resolve("state-" + name)), Stream.of(more)).toList()));
        return file;
    }

    static String index(String name) {
        return "engram-memories-" + name;
    }

    /** Where the run named {@code name} keeps its checkpoints. */
    static Path checkpoints(Path dir, String name) {
        return dir.resolve("state-" + name).resolve(name);
    }

    /** {@code ./engram run --config FILE} as a process of its own, on this JVM's classpath, its output in {@code log}. */
    static Process run(Path config, Path log) throws Exception {
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g",
                "-Dengram.home=" + EngramHome.dir(), "-cp", System.getProperty("java.class.path"),
                EngramCli.class.getName(), "run", "--config", config.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** Polls while the run process lives; its death fails at once; if the check never holds, the run is killed. */
    static void await(String what, Process process, Polling.Check check) throws Exception {
        try {
            Polling.await(what, PATIENCE, () -> {
                if (!process.isAlive()) {
                    throw new AssertionError(what + ": the run exited with " + process.exitValue());
                }
                return check.holds();
            });
        } catch (Exception | AssertionError e) {
            process.destroyForcibly().waitFor();
            throw e;
        }
    }

    /** The run ends by itself within {@link #PATIENCE} (else it is killed), exit 0, saying so. */
    static void assertEnds(Process run, Path log) throws Exception {
        boolean ended = run.waitFor(PATIENCE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        if (!ended) {
            run.destroyForcibly().waitFor();
        }
        assertThat(ended).as("the run ended within " + PATIENCE).isTrue();
        assertThat(run.exitValue()).as(Files.readString(log)).isZero();
        assertThat(Files.readString(log)).contains("the bounded run ended: ");
    }

    /** SIGKILL: no shutdown hook, no final checkpoint. */
    static void kill(Process process) throws InterruptedException {
        process.destroyForcibly().waitFor();
        assertThat(process.exitValue()).isEqualTo(137);
    }

    /** The turns and gateway memories of the tenants indexed so far; 0 while the job has not created the index. */
    static long indexed(EmbeddedOpenSearch openSearch, String name) {
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearch.httpUrl(), index(name), RetryPolicy.DEFAULT)) {
            store.refresh();
            return TENANTS.stream().mapToLong(t -> store.count(t, Set.of(RecordType.TURN, RecordType.MEMORY,
                    RecordType.LESSON))).sum();
        } catch (RuntimeException e) {
            return 0;
        }
    }

    /**
     * What a run left: the tenants' OpenSearch documents in its index and their PostgreSQL rows, which are deleted
     * once read so the next run of the same tenants starts without them.
     */
    record Outcome(Map<String, List<String>> documents, Map<String, List<String>> rows,
                   Map<String, List<JsonNode>> changes) {

        /** What the run {@code name} left, and the change feed published since {@code since}. */
        static Outcome take(EmbeddedOpenSearch openSearch, String name, EmbeddedPostgreSql postgres, EmbeddedKafka kafka,
                            Instant since) throws Exception {
            try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearch.httpUrl(), index(name),
                    RetryPolicy.DEFAULT)) {
                return new Outcome(EndToEndInput.snapshot(store, TENANTS), EndToEndInput.takeRows(postgres, TENANTS),
                        ChangeFeedChecks.publishedSince(kafka, since));
            }
        }

        /**
         * The same documents and rows, canary scores included, as a run that never died ({@code uninterrupted},
         * which compacted sessions and closed cycles, so the comparison covers them), and the same change feed:
         * each change once, none of a record the store does not hold, no forgotten text after its forget.
         */
        void assertSameAs(Outcome uninterrupted) {
            assertThat(uninterrupted.documents.get(TENANTS.get(0))).as("summaries were written")
                    .anyMatch(l -> l.contains("|summary|"));
            assertThat(uninterrupted.rows.get("cycle_metrics")).as("cycles closed").hasSizeGreaterThan(4);
            EndToEndInput.assertSame(documents, uninterrupted.documents);
            EndToEndInput.assertSame(rows, uninterrupted.rows);
            assertThat(uninterrupted.changes.keySet()).containsAll(TENANTS);
            assertThat(ChangeFeedChecks.asMultiset(changes)).isEqualTo(ChangeFeedChecks.asMultiset(uninterrupted.changes));
            TENANTS.forEach(tenant -> ChangeFeedChecks.assertTellsTheStore(tenant, changes.get(tenant),
                    documents.get(tenant).stream().map(l -> l.split("\\|", -1)[0]).toList()));
        }
    }
}
