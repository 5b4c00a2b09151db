package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.client.EngramProducer;
import io.engram.client.KafkaClients;
import io.engram.client.Payload;
import io.engram.client.Topics;
import io.engram.cluster.FlinkRest;
import io.engram.cluster.StandaloneCluster;
import io.engram.jobs.EngramJob;
import io.engram.jobs.PipelineConfig;
import io.engram.jobs.pipeline.EndToEndInput;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The shaded job jar on a real Flink standalone cluster: a JobManager and two TaskManagers as separate JVM
 * processes (RocksDB state, incremental checkpoints), submitted over REST, against the embedded Kafka,
 * OpenSearch and PostgreSQL of this JVM. One cluster for both tests.
 */
@ExtendWith(EmbeddedServicesExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StandaloneClusterTest {

    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(10);

    /** Under target/ so the processes' logs outlive a failed run. */
    private static final Path HOME = Path.of("target/standalone-cluster").toAbsolutePath();

    private StandaloneCluster cluster;
    private FlinkRest rest;
    private String jarId;

    @BeforeAll
    void startCluster() throws Exception {
        org.apache.commons.io.file.PathUtils.deleteDirectory(Files.createDirectories(HOME));
        cluster = StandaloneCluster.start(StandaloneCluster.Options.of(HOME,
                ClusterCommand.defaultLib(), 2));
        rest = cluster.rest();
        jarId = rest.uploadJar(Path.of(System.getProperty("engram.job.jar")));
    }

    /** A test that failed halfway leaves its job running on the slots the next test needs. */
    @org.junit.jupiter.api.AfterEach
    void cancelLeftoverJobs() throws Exception {
        if (rest != null && cluster != null) {
            rest.cancelUnfinishedJobs();
        }
    }

    @AfterAll
    void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Flink's Prometheus reporter (what deploy/pod-monitor.yaml scrapes) answers on every process. */
    @Test
    void everyFlinkProcessServesPrometheusMetrics() throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        Set<String> components = new HashSet<>();
        for (int port = 9250; port <= 9299; port++) { // metrics.reporter.prom.port of the cluster's config
            try {
                String body = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port
                        + "/metrics")).timeout(Duration.ofSeconds(5)).build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body();
                for (String component : List.of("flink_jobmanager_", "flink_taskmanager_")) {
                    if (body.contains(component)) {
                        components.add(component + port);
                    }
                }
            } catch (java.io.IOException nothingListens) {
                // ports without a Flink process
            }
        }
        assertThat(components).filteredOn(c -> c.startsWith("flink_jobmanager_")).hasSize(1);
        assertThat(components).filteredOn(c -> c.startsWith("flink_taskmanager_")).hasSizeGreaterThanOrEqualTo(2);
    }

    /**
     * The job runs unbounded at parallelism 2 over the end-to-end input; once a checkpoint holds some of its
     * state, one TaskManager is killed (SIGKILL) and a replacement started, then more turns follow (of a running
     * session, of a second session of a tenant, of a new tenant). Once
     * every input record is read and checkpointed, a draining stop ends the job. Its documents and rows equal a
     * failure-free run's over the same records.
     */
    @Test
    void aTaskManagerKilledMidStreamChangesNothing(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch,
                                                  EmbeddedPostgreSql postgres) throws Exception {
        Topics.create(io.engram.client.KafkaClients.at(kafka.bootstrapServers()), 2);
        long sentFrom = System.currentTimeMillis();
        // submitted the way an operator does: ./engram cluster submit (setup, jar upload, run over REST)
        Path killRun = write("kill.properties", settings(kafka, openSearch, postgres, "cluster-kill", sentFrom, false));
        String job = submit("--config", killRun.toString(), "--parallelism", "2").job();
        assertRestoredAt(job, null, 2);
        await("a first checkpoint", job, () -> rest.checkpoints(job).path("counts").path("completed").asInt() >= 1);

        // the end-to-end input, then a kill once a checkpoint holds some of its state, then more input
        EndToEndInput.produce(kafka);
        String victim = cluster.taskManagerIds().get(0);
        awaitFirstWritesCheckpointed(job, openSearch, "cluster-kill");
        cluster.killTaskManager(victim);
        cluster.startTaskManager();
        try (EngramProducer producer = new EngramProducer(kafka.bootstrapServers())) {
            // after the loss, later in event time: more of acme's session (its turns arrive in two bursts, so the
            // watermark passes the first before the second is read), a second session of globex (whose
            // summaries interleave with its first session's), and a new tenant's conversation
            for (int seq = 40; seq < 60; seq++) {
                producer.send(turn(EndToEndInput.ACME, "s1", seq, EndToEndInput.T0.plusSeconds(60L * seq + 5)));
            }
            Instant later = EndToEndInput.T0.plusSeconds(2400);
            for (int seq = 0; seq < 20; seq++) {
                producer.send(turn(EndToEndInput.GLOBEX, "s2", seq, later.plusSeconds(60L * seq + 35)));
                producer.send(turn(LATE, "s1", seq, later.plusSeconds(60L * seq + 5)));
            }
        }
        Map<TopicPartition, Long> end = InputOffsets.end(KafkaClients.at(kafka.bootstrapServers()));
        await("every input record read and checkpointed", job, () -> InputOffsets.committed(KafkaClients.at(kafka.bootstrapServers()), "cluster-kill").equals(end));
        // ./engram status against the cluster (what an operator runs after cluster up + submit): this job, running
        // since its restart, with nothing left to read and the end-to-end input's malformed records counted
        CliRun status = CliRun.of("status", "--config", killRun.toString(), "--rest", rest.baseUrl(), "--job", job,
                "--rejects-window", "60");
        assertThat(status.exit()).as(status.out()).isZero();
        assertThat(status.out()).containsPattern("(?m)^job: +engram " + job + " RUNNING, up \\d+ (s|min)$")
                .containsPattern("(?m)^checkpoint: #\\d+ completed")
                .containsPattern("(?m)^lag: +" + java.util.regex.Pattern.quote(Topics.DOCS) + " 0, .*"
                        + java.util.regex.Pattern.quote(Topics.TURNS) + " 0 \\(group cluster-kill\\)$")
                .containsPattern("(?m)^rejects: +last 60 min: .*invalid_json \\d+")
                .containsPattern("(?m)^freshness: +p50 \\d+ ms, p99 \\d+ ms");
        drainAndStop(job);
        assertThat(rest.checkpoints(job).path("counts").path("restored").asInt())
                .as("the job restored from a checkpoint after losing %s", victim).isGreaterThanOrEqualTo(1);
        Map<String, List<String>> documents = documents(openSearch, "cluster-kill");
        assertThat(documents.get(LATE)).as("the input after the loss").filteredOn(l -> l.contains("|turn|")).hasSize(20);
        assertThat(documents.get(EndToEndInput.ACME)).filteredOn(l -> l.contains("|turn|")).hasSize(60);
        assertThat(documents.get(EndToEndInput.GLOBEX)).filteredOn(l -> l.contains("|turn|")).hasSize(60);
        Map<String, List<String>> rows = EndToEndInput.takeRows(postgres, COMPARED);
        assertAFailureFreeRunEnds(kafka, openSearch, postgres, "cluster-plain", sentFrom, documents, rows);
    }

    /**
     * The whole cluster killed at once after a checkpoint (a lost machine; a standalone JobManager has no HA):
     * {@code cluster up} again on the same home and {@code cluster submit --resume} restore the newest retained
     * checkpoint, and the job ends with the documents and the rows (canary scores included) of a run that never
     * failed.
     */
    @Test
    void aClusterKilledWholeResumesFromItsNewestCheckpoint(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch,
                                                         EmbeddedPostgreSql postgres) throws Exception {
        Topics.create(io.engram.client.KafkaClients.at(kafka.bootstrapServers()), 2);
        long sentFrom = System.currentTimeMillis();
        Path settings = write("resume.properties", settings(kafka, openSearch, postgres, "cluster-resume", sentFrom, false));
        String job = submit("--config", settings.toString(), "--parallelism", "2").job();
        await("a first checkpoint", job, () -> rest.checkpoints(job).path("counts").path("completed").asInt() >= 1);
        EndToEndInput.produce(kafka);
        awaitFirstWritesCheckpointed(job, openSearch, "cluster-resume");

        cluster.kill();
        cluster = StandaloneCluster.start(StandaloneCluster.Options.of(HOME, ClusterCommand.defaultLib(), 2));
        rest = cluster.rest();
        jarId = rest.uploadJar(Path.of(System.getProperty("engram.job.jar")));
        Submitted resume = submit("--config", settings.toString(), "--parallelism", "2", "--resume", "--home",
                HOME.toString());
        assertThat(resume.out()).contains("resuming from " + HOME.resolve("checkpoints"));
        String second = resume.job();
        try (EngramProducer producer = new EngramProducer(kafka.bootstrapServers())) {
            Instant later = EndToEndInput.T0.plusSeconds(2400);
            for (int seq = 0; seq < 20; seq++) { // input after the loss
                producer.send(turn(LATE, "s1", seq, later.plusSeconds(60L * seq + 5)));
            }
        }
        Map<TopicPartition, Long> end = InputOffsets.end(KafkaClients.at(kafka.bootstrapServers()));
        await("every input record read and checkpointed", second, () -> InputOffsets.committed(KafkaClients.at(kafka.bootstrapServers()), "cluster-resume").equals(end));
        drainAndStop(second);
        Map<String, List<String>> documents = documents(openSearch, "cluster-resume");
        assertThat(documents.get(LATE)).filteredOn(l -> l.contains("|turn|")).hasSize(20);
        assertThat(documents.get(EndToEndInput.ACME)).filteredOn(l -> l.contains("|summary|")).isNotEmpty();
        Map<String, List<String>> rows = EndToEndInput.takeRows(postgres, COMPARED);
        assertAFailureFreeRunEnds(kafka, openSearch, postgres, "cluster-resume-plain", sentFrom, documents, rows);
    }

    /**
     * Savepoint, parallelism 2 → 1 → 2, with input in between that only state explains: a replayed old
     * document version and an unchanged one (document cache), turns sent before the first savepoint
     * summarised after it (compaction buffers), and cycle rows counting memories from all three phases under
     * one canary set (collapse history).
     */
    @Test
    void rescalingFromSavepointsCarriesKeyedState(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch,
                                                 EmbeddedPostgreSql postgres) throws Exception {
        Topics.create(io.engram.client.KafkaClients.at(kafka.bootstrapServers()), 2);
        long sentFrom = System.currentTimeMillis();
        Properties rescale = settings(kafka, openSearch, postgres, "cluster-rescale", sentFrom, false);
        String agents = EndToEndInput.agentDocument("getzep+graphiti__AGENTS.md");
        String agentsV2 = agents + "\n- You must run the linters before every commit.\n";
        Instant t0 = Instant.parse("2026-11-20T10:00:00Z");

        try (OpenSearchMemoryStore store = store(openSearch, "cluster-rescale");
             EngramProducer producer = new EngramProducer(kafka.bootstrapServers())) {
            store.ensureIndex(PipelineConfig.defaults().embeddingModel().id(), EmbeddingModel.DIMENSION); // what the job does first; the test polls it before
            // phase 1, parallelism 2: all within seconds of event time, so no turn is final yet
            String job = run(rescale, 2, null);
            assertRestoredAt(job, null, 2);
            producer.send(Payload.doc(DOCS, "helper", "AGENTS.md", "core", 1, agents, t0));
            turns(producer, 0, 10, t0.plusSeconds(1), 1);
            for (int i = 0; i < 5; i++) {
                producer.send(Payload.memory(MEMS, "m" + i, "memory", MEMORIES[i], List.of(), 0, "c0", t0.plusSeconds(i)));
            }
            producer.flush();
            awaitStore(job, store, DOCS, lines -> versions(lines).equals(Set.of(1L)));
            awaitStore(job, store, CHAT, lines -> count(lines, RecordType.TURN) == 10);
            awaitStore(job, store, MEMS, lines -> count(lines, RecordType.MEMORY) == 5);
            String savepoint1 = rest.stopWithSavepoint(job, false);

            // phase 2, parallelism 1: a new document version, later turns, the next memory cycle
            job = run(rescale, 1, savepoint1);
            assertRestoredAt(job, savepoint1, 1);
            producer.send(Payload.doc(DOCS, "helper", "AGENTS.md", "core", 2, agentsV2, t0.plusSeconds(600)));
            turns(producer, 10, 30, t0.plusSeconds(600), 60);
            producer.send(Payload.memory(MEMS, "m5", "lesson", MEMORIES[5], List.of("m2"), 1, "c1", t0.plusSeconds(700)));
            producer.send(Payload.memory(MEMS, "m6", "memory", MEMORIES[6], List.of(), 0, "c1", t0.plusSeconds(701)));
            producer.send(Payload.memoryDeleted(MEMS, "m1", "memory", "c1", t0.plusSeconds(702)));
            producer.flush();
            awaitStore(job, store, DOCS, lines -> versions(lines).equals(Set.of(2L)));
            awaitStore(job, store, CHAT, lines -> count(lines, RecordType.TURN) == 30);
            awaitStore(job, store, MEMS, lines -> count(lines, RecordType.MEMORY) == 5 && count(lines, RecordType.LESSON) == 1);
            int v2Chunks = snapshot(store, DOCS).size();
            String savepoint2 = rest.stopWithSavepoint(job, false);

            // phase 3, parallelism 2: a replay of version 1, a version 3 with version 2's bytes, the last turns
            // and memory cycle; then a draining stop fires every remaining event-time timer
            job = run(rescale, 2, savepoint2);
            assertRestoredAt(job, savepoint2, 2);
            producer.send(Payload.doc(DOCS, "helper", "AGENTS.md", "core", 1, agents, t0.plusSeconds(2400)));
            producer.send(Payload.doc(DOCS, "helper", "AGENTS.md", "core", 3, agentsV2, t0.plusSeconds(2401)));
            turns(producer, 30, 40, t0.plusSeconds(2400), 60);
            producer.send(Payload.memory(MEMS, "m7", "knowledge", MEMORIES[7], List.of(), 0, "c2", t0.plusSeconds(2500)));
            producer.flush();
            awaitStore(job, store, CHAT, lines -> count(lines, RecordType.TURN) == 40);
            awaitStore(job, store, MEMS, lines -> count(lines, RecordType.KNOWLEDGE) == 1);
            drainAndStop(job);

            // document cache: still exactly version 2's chunks (the replay and the unchanged version 3 were no-ops)
            List<MemoryRecord> docs = snapshot(store, DOCS);
            assertThat(versions(docs)).containsExactly(2L);
            assertThat(docs).hasSize(v2Chunks);
            // compaction buffers: the turns sent before the first savepoint are summarised after it
            Set<String> covered = snapshot(store, CHAT).stream().filter(r -> r.type() == RecordType.SUMMARY)
                    .flatMap(r -> r.sourceRefs().stream()).collect(Collectors.toSet());
            for (int seq = 0; seq < 10; seq++) {
                assertThat(covered).as("summaries cover t" + seq).contains("t" + seq);
            }
        }
        // collapse history: one canary set across the three phases, store counts that include every phase
        List<String> cycles = new ArrayList<>();
        Set<String> canarySets = new HashSet<>();
        try (Connection c = postgres.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT cycle_id, store_total, accepted_actions, canary_set_id FROM cycle_metrics"
                     + " WHERE tenant_id = '" + MEMS + "' ORDER BY cycle_id")) {
            while (rs.next()) {
                cycles.add(rs.getString(1) + " total=" + rs.getLong(2) + " accepted=" + rs.getLong(3));
                canarySets.add(rs.getString(4));
            }
        }
        assertThat(cycles).containsExactly("c0 total=5 accepted=5", "c1 total=6 accepted=3", "c2 total=7 accepted=1");
        assertThat(canarySets).hasSize(1);
    }

    /** The tenant whose conversation starts after the TaskManager loss, and every tenant the kill test compares. */
    private static final String LATE = "e2e-late";
    private static final List<String> COMPARED = List.of(EndToEndInput.ACME, EndToEndInput.GLOBEX, EndToEndInput.INITECH, LATE);

    private static final String DOCS = "rescale-docs";
    private static final String CHAT = "rescale-chat";
    private static final String MEMS = "rescale-mems";
    private static final String[] MEMORIES = {"The customer prefers invoices in euros", "Quarterly reports are due on the fifth",
            "The staging database is restored every Sunday night", "Escalate outages to the on-call lead",
            "Staplers are ordered from the Swingline catalogue", "Back up the staging database before the Sunday restore",
            "The design review moved to Thursdays", "The VPN gateway runs WireGuard"};

    private static Payload turn(String tenant, String session, int seq, Instant ts) {
        return Payload.turn(tenant, session, "u1", "t" + seq, seq, seq % 2 == 0 ? "user" : "assistant",
                EndToEndInput.turnText(tenant, seq), ts);
    }

    private static void turns(EngramProducer producer, int from, int to, Instant start, int secondsApart) {
        for (int seq = from; seq < to; seq++) {
            producer.send(turn(CHAT, "s1", seq, start.plusSeconds((long) secondsApart * (seq - from))));
        }
    }

    /** Submits the pipeline at {@code parallelism}, from {@code savepoint} when given. */
    private String run(Properties settings, int parallelism, String savepoint) throws Exception {
        Properties withParallelism = new Properties();
        withParallelism.putAll(settings);
        withParallelism.setProperty("parallelism", String.valueOf(parallelism));
        return rest.run(jarId, new FlinkRest.RunRequest(EngramJob.class.getName(), parallelism,
                ClusterCommand.programArgs(withParallelism), savepoint, null));
    }

    /** The job runs every operator at {@code parallelism}, restored from {@code savepoint} (or from nothing). */
    private void assertRestoredAt(String job, String savepoint, int parallelism) throws Exception {
        rest.awaitState(job, Set.of("RUNNING"), JOB_TIMEOUT);
        JsonNode restored = rest.checkpoints(job).path("latest").path("restored");
        if (savepoint == null) {
            assertThat(restored.isMissingNode() || restored.isNull()).as("a fresh start: %s", restored).isTrue();
        } else {
            assertThat(restored.path("is_savepoint").asBoolean()).isTrue();
            assertThat(restored.path("external_path").asText()).isEqualTo(savepoint);
        }
        for (JsonNode vertex : rest.job(job).path("vertices")) {
            assertThat(vertex.path("parallelism").asInt()).as(vertex.path("name").asText()).isEqualTo(parallelism);
        }
    }

    private static Properties settings(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch, EmbeddedPostgreSql postgres,
                                       String name, long startingTimestamp, boolean bounded) {
        Properties p = new Properties();
        p.setProperty("kafka.bootstrap", kafka.bootstrapServers());
        p.setProperty("kafka.group", name);
        p.setProperty("kafka.starting-offsets", "timestamp:" + startingTimestamp);
        p.setProperty("kafka.bounded", String.valueOf(bounded));
        p.setProperty("kafka.transactional-id-prefix", name);
        p.setProperty("opensearch.url", openSearch.httpUrl());
        p.setProperty("opensearch.index", "engram-memories-" + name);
        p.setProperty("postgres.url", postgres.jdbcUrl());
        p.setProperty("postgres.user", EmbeddedPostgreSql.USER);
        p.setProperty("checkpoint.interval", "1s");
        p.setProperty("state.dir", HOME.resolve("run-state").toString()); // ./engram run's checkpoints
        return p;
    }

    /**
     * The failure-free run over the same records, the same job on a local MiniCluster through ./engram run: it
     * ends with these documents and these rows (canary scores included).
     */
    private static void assertAFailureFreeRunEnds(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch,
                                                  EmbeddedPostgreSql postgres, String name, long sentFrom,
                                                  Map<String, List<String>> documents,
                                                  Map<String, List<String>> rows) throws Exception {
        Properties plainRun = settings(kafka, openSearch, postgres, name, sentFrom, true);
        plainRun.setProperty("flink.restart-strategy.type", "none");
        CliRun run = CliRun.of("run", "--config", write(name + ".properties", plainRun).toString());
        assertThat(run.exit()).as(run.err()).isZero();
        EndToEndInput.assertSame(documents, documents(openSearch, name));
        EndToEndInput.assertSame(rows, EndToEndInput.takeRows(postgres, COMPARED));
    }

    /** Stops the job with a final savepoint (every event-time timer fires first) and waits until it has finished. */
    private void drainAndStop(String job) throws Exception {
        rest.stopWithSavepoint(job, true);
        assertThat(rest.awaitState(job, Set.of("FINISHED"), JOB_TIMEOUT)).isEqualTo("FINISHED");
    }

    /** What a run wrote to its index, as the end-to-end runs compare it. */
    private static Map<String, List<String>> documents(EmbeddedOpenSearch openSearch, String name) {
        try (OpenSearchMemoryStore store = store(openSearch, name)) {
            return EndToEndInput.snapshot(store, COMPARED);
        }
    }

    private static Path write(String name, Properties settings) throws Exception {
        Path file = HOME.resolve(name);
        try (var out = Files.newBufferedWriter(file)) {
            settings.store(out, null);
        }
        return file;
    }

    private static OpenSearchMemoryStore store(EmbeddedOpenSearch openSearch, String name) {
        return new OpenSearchMemoryStore(openSearch.httpUrl(), "engram-memories-" + name, RetryPolicy.DEFAULT);
    }

    private static List<MemoryRecord> snapshot(OpenSearchMemoryStore store, String tenant) {
        store.refresh();
        return store.find(tenant, Map.of(), Set.of(), 10_000, null, true);
    }

    private static Set<Long> versions(List<MemoryRecord> records) {
        return records.stream().filter(r -> r.type() == RecordType.INVARIANT || r.type() == RecordType.LORE)
                .map(MemoryRecord::docVersion).collect(Collectors.toSet());
    }

    private static long count(List<MemoryRecord> records, RecordType type) {
        return records.stream().filter(r -> r.type() == type).count();
    }

    /** Waits until the job has written its first records into the named index and then completed a checkpoint. */
    private void awaitFirstWritesCheckpointed(String job, EmbeddedOpenSearch openSearch, String name) throws Exception {
        try (OpenSearchMemoryStore store = store(openSearch, name)) {
            // the index may not exist yet: counting before the job creates it would fail
            store.ensureIndex(PipelineConfig.defaults().embeddingModel().id(), EmbeddingModel.DIMENSION);
            await("the first records written", job, () -> {
                store.refresh();
                return store.count(EndToEndInput.ACME, Set.of()) + store.count(EndToEndInput.GLOBEX, Set.of()) > 0;
            });
        }
        int completed = rest.checkpoints(job).path("counts").path("completed").asInt();
        await("a checkpoint after the first writes", job,
                () -> rest.checkpoints(job).path("counts").path("completed").asInt() > completed);
    }

    /** Polls {@code check}; on timeout fails with the job's state and last failure. */
    private void await(String what, String job, Polling.Check check) throws Exception {
        Polling.await("job " + job + ": " + what, JOB_TIMEOUT, check, () -> "; job " + rest.jobState(job)
                + ", last failure: " + rest.exceptions(job).path("root-exception").asText() + " (logs: "
                + HOME.resolve("log") + ")");
    }

    /** What {@code cluster submit} printed, and the id of the job it started. */
    private record Submitted(String job, String out) {
    }

    /** {@code ./engram cluster submit} against this cluster, which must succeed. */
    private Submitted submit(String... options) {
        List<String> command = new ArrayList<>(List.of("cluster", "submit", "--rest", cluster.restUrl()));
        command.addAll(List.of(options));
        CliRun submit = CliRun.of(command.toArray(String[]::new));
        assertThat(submit.exit()).as(submit.err()).isZero();
        Matcher started = Pattern.compile("job: ([0-9a-f]{32})").matcher(submit.out());
        assertThat(started.find()).as(submit.out()).isTrue();
        return new Submitted(started.group(1), submit.out());
    }

    private void awaitStore(String job, OpenSearchMemoryStore store, String tenant,
                            Predicate<List<MemoryRecord>> condition) throws Exception {
        await(tenant + "'s expected records", job, () -> condition.test(snapshot(store, tenant)));
    }
}
