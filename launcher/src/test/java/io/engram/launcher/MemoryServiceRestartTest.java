package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.jobs.PipelineConfig;
import io.engram.jobs.pipeline.EndToEndInput;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./engram up --data-dir DIR} stopped, or killed, and started again: the servers keep their data, and the
 * job resumes from its newest checkpoint, compaction state included: a session begun before the stop is compacted
 * with the turns written after it, as if nothing had stopped.
 */
class MemoryServiceRestartTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant T0 = Instant.parse("2026-11-30T09:00:00Z");
    private static final Duration PATIENCE = Duration.ofSeconds(120);
    private final HttpClient http = HttpClient.newHttpClient();

    private static void await(String what, Polling.Check check) throws Exception {
        Polling.await(what, PATIENCE, check);
    }

    /** acme's key: made at the first start of a data directory, kept by every restart on it. */
    private String key;

    private JsonNode call(LiveProduct product, String method, String path, String body) throws Exception {
        return call(product.apiUrl(), method, path, body);
    }

    private JsonNode call(String apiUrl, String method, String path, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(apiUrl + path))
                .header("Authorization", "Bearer " + key)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
        return JSON.readTree(http.send(request, HttpResponse.BodyHandlers.ofString()).body());
    }

    /** Turns {@code from} … {@code to - 1} of session s1, a minute apart from T0. */
    private void writeTurns(LiveProduct product, int from, int to) throws Exception {
        writeTurns(product.apiUrl(), from, to);
    }

    private void writeTurns(String apiUrl, int from, int to) throws Exception {
        writeTurns(apiUrl, from, to, Duration.ZERO);
    }

    /** The same turns {@code later} than their place in the minute-apart sequence. */
    private void writeTurns(String apiUrl, int from, int to, Duration later) throws Exception {
        ArrayNode records = JSON.createArrayNode();
        for (int i = from; i < to; i++) {
            records.addObject().put("session_id", "s1").put("user_id", "ann").put("turn_id", "t" + i).put("seq", i)
                    .put("role", i % 2 == 0 ? "user" : "assistant")
                    .put("text", "Turn " + i + " about planning the " + (i % 3 == 0 ? "garden" : i % 3 == 1 ? "kitchen" : "attic")
                            + " renovation budget.")
                    .put("ts", T0.plusSeconds(60L * i).plus(later).toString());
        }
        ObjectNode body = JSON.createObjectNode();
        body.set("records", records);
        assertThat(call(apiUrl, "POST", "/v1/turns", body.toString()).get("accepted")).hasSize(to - from);
        ArrayNode memories = JSON.createArrayNode(); // each room's newer note supersedes the one before
        for (int i = from; i < to; i++) {
            memories.addObject().put("memory_id", "n" + i).put("user_id", "ann").put("key", "renovation." + i % 3)
                    .put("text", "Note " + i + ": the " + (i % 3 == 0 ? "garden" : i % 3 == 1 ? "kitchen" : "attic")
                            + " budget is revised.").put("ts", T0.plusSeconds(60L * i + 30).plus(later).toString());
        }
        ObjectNode notes = JSON.createObjectNode();
        notes.set("records", memories);
        assertThat(call(apiUrl, "POST", "/v1/memories", notes.toString()).get("accepted")).hasSize(to - from);
    }

    private int turnsStored(LiveProduct product) throws Exception {
        return turnsStored(product.apiUrl());
    }

    private int turnsStored(String apiUrl) throws Exception {
        return call(apiUrl, "GET", "/v1/memories?type=turn&session_id=s1&limit=100", null).get("records").size();
    }

    /** After the restart: nothing of before it lost, the compaction state included, and acme's key still good. */
    private void resumeAndCompact(Path dataDir, Path newest, Properties settings) throws Exception {
        try (LiveProduct second = LiveProduct.start(Optional.of(dataDir), 0, List.of("acme"), settings, line -> { })) {
            assertThat(second.restoredFrom()).contains(newest);
            assertThat(second.keys()).as("acme keeps the key it had").isEmpty();
            assertThat(turnsStored(second)).as("OpenSearch kept its data").isEqualTo(15);
            writeTurns(second, 15, 40);
            await("a summary", () -> call(second, "GET", "/v1/memories?type=summary", null).get("records").size() > 0);
            JsonNode summary = call(second, "GET", "/v1/memories?type=summary", null).get("records").get(0);
            // 40 turns, the newest kept raw: the first summary covers turns from before the stop, which only the
            // restored compaction state still held
            assertThat(summary.get("source_refs").toString()).contains("\"t0\"", "\"t14\"");
        }
    }

    @Test
    void aRestartResumesFromTheNewestCheckpointWithItsState(@TempDir Path dataDir) throws Exception {
        Properties fast = new Properties();
        fast.setProperty("checkpoint.interval", "1s");
        Path checkpoints = dataDir.resolve("checkpoints");
        try (LiveProduct first = LiveProduct.start(Optional.of(dataDir), 0, List.of("acme"), fast, line -> { })) {
            assertThat(first.restoredFrom()).isEmpty();
            key = first.keys().get("acme");
            writeTurns(first, 0, 15);
            await("15 turns stored", () -> turnsStored(first) == 15);
            Optional<Path> before = LocalPipeline.latestCheckpoint(checkpoints);
            await("a checkpoint after the turns", () -> !LocalPipeline.latestCheckpoint(checkpoints).equals(before));
            assertThat(call(first, "GET", "/v1/memories?type=summary", null).get("records")).as("below k: no summary yet")
                    .isEmpty();
        }
        Path newest = LocalPipeline.latestCheckpoint(checkpoints).orElseThrow();
        resumeAndCompact(dataDir, newest, fast);
    }

    /**
     * {@code ./engram up --data-dir DIR} killed with -9 while it works on accepted turns: no close, no shutdown
     * hook, its PostgreSQL (a child process) left running on the data directory. The same command on the same
     * directory stops that server, resumes from the newest checkpoint with the same keys, and ends with exactly
     * the OpenSearch documents and the cycle_metrics / collapse_alerts / canary_queries rows of an {@code up} that
     * never failed, given the same turns. One session's turns share a partition, so event time, and with it every
     * window and cycle, depends on the turns only.
     */
    @Test
    void aKilledUpEndsAsAnUpThatNeverFailed(@TempDir Path dataDir, @TempDir Path plainDir) throws Exception {
        Path checkpoints = dataDir.resolve("checkpoints");
        Process up = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g",
                "-cp", System.getProperty("java.class.path"), EngramCli.class.getName(), "up", "--data-dir",
                dataDir.toString(), "--port", "0", "--tenants", "acme")
                .redirectErrorStream(true).redirectOutput(dataDir.resolve("up.log").toFile()).start();
        try {
            await("up answering", () -> Files.readString(dataDir.resolve("up.log")).contains("key: acme "));
            String log = Files.readString(dataDir.resolve("up.log"));
            String apiUrl = line(log, "api: ");
            key = line(log, "key: acme ");
            writeTurns(apiUrl, 0, 15);
            await("15 turns stored", () -> turnsStored(apiUrl) == 15);
            Optional<Path> before = LocalPipeline.latestCheckpoint(checkpoints);
            await("a checkpoint after the turns", () -> !LocalPipeline.latestCheckpoint(checkpoints).equals(before));
            writeTurns(apiUrl, 15, 25); // accepted: in Kafka; the job is still at them when the process dies
        } finally {
            up.destroyForcibly();
            assertThat(up.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        long orphan = Long.parseLong(Files.readAllLines(dataDir.resolve("stack/postgres/pgdata/postmaster.pid")).get(0).strip());
        assertThat(ProcessHandle.of(orphan).map(ProcessHandle::isAlive)).as("PostgreSQL outlived the killed up").contains(true);
        Properties fast = new Properties();
        fast.setProperty("checkpoint.interval", "1s");
        Path newest = LocalPipeline.latestCheckpoint(checkpoints).orElseThrow();
        Map<String, List<String>> crashed;
        try (LiveProduct second = LiveProduct.start(Optional.of(dataDir), 0, List.of("acme"), fast, line -> { })) {
            assertThat(second.restoredFrom()).contains(newest);
            assertThat(second.keys()).as("acme keeps the key it had").isEmpty();
            await("the turns accepted before the kill stored", () -> turnsStored(second) == 25);
            crashed = finish(second, checkpoints);
        }
        Map<String, List<String>> expected;
        try (LiveProduct plain = LiveProduct.start(Optional.of(plainDir), 0, List.of("acme"), fast, line -> { })) {
            key = plain.keys().get("acme");
            writeTurns(plain, 0, 15);
            writeTurns(plain, 15, 25);
            expected = finish(plain, plainDir.resolve("checkpoints"));
        }
        assertThat(expected.get("acme")).as("summaries were written").anyMatch(l -> l.contains("|summary|"));
        assertThat(expected.get("acme")).as("the garden's first note superseded by its second")
                .anyMatch(l -> l.startsWith("acme/n0|") && l.endsWith("|renovation.0|[]|acme/n3@" + T0.plusSeconds(210)));
        assertThat(expected.get("cycle_metrics")).as("cycles closed").isNotEmpty();
        assertThat(expected.get("canary_queries")).as("canaries minted").isNotEmpty();
        EndToEndInput.assertSame(crashed, expected); // canary scores included
    }

    /**
     * Turns 25–39 and the session's next turn a day later (event time passes every window and cycle of the
     * earlier ones), then waits until every input record is read and a checkpoint completed after that. Returns
     * acme's OpenSearch documents (under "acme") and its rows (under each table's name).
     */
    private Map<String, List<String>> finish(LiveProduct product, Path checkpoints) throws Exception {
        writeTurns(product, 25, 40);
        writeTurns(product.apiUrl(), 40, 41, Duration.ofDays(1));
        PipelineConfig config = PipelineConfig.fromProperties(product.pipeline());
        await("every input record read and checkpointed",
                () -> InputOffsets.allRead(config.kafka(), config.consumerGroup()));
        Optional<Path> read = LocalPipeline.latestCheckpoint(checkpoints);
        await("a checkpoint after the last record", () -> !LocalPipeline.latestCheckpoint(checkpoints).equals(read));
        Map<String, List<String>> ending = new TreeMap<>();
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(config.openSearch(), config.index(),
                RetryPolicy.DEFAULT)) {
            ending.putAll(EndToEndInput.snapshot(store, List.of("acme")));
        }
        try (Connection c = DriverManager.getConnection(config.postgresUrl(), config.postgresUser(),
                config.postgresPassword())) {
            ending.putAll(EndToEndInput.rows(c, List.of("acme")));
        }
        return ending;
    }

    private static String line(String log, String prefix) {
        return log.lines().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow().substring(prefix.length()).strip();
    }
}
