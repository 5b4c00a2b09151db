package io.engram.launcher;

import io.engram.jobs.EngramJob;
import io.engram.jobs.EngramPipeline;
import io.engram.jobs.PipelineConfig;
import io.engram.client.Topics;
import io.engram.stack.EmbeddedStack;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The Engram pipeline on a local Flink MiniCluster, the same {@link EngramPipeline} a cluster runs: what
 * {@code run} executes against external servers, {@code up} live over the embedded stack, and {@code demo} and
 * {@code eval} over it to the end of their input. {@code run} and {@code up} keep their checkpoints on disk and
 * resume from the newest (docs/operations.md, "Recovery").
 */
final class LocalPipeline {

    private LocalPipeline() {
    }

    /** Settings for the embedded stack's servers: two partitions per topic, 2 s checkpoints, parallelism 1. */
    static Properties embedded(EmbeddedStack stack, boolean bounded) {
        Properties p = new Properties();
        p.setProperty("kafka.bootstrap", stack.kafka().orElseThrow().bootstrapServers());
        p.setProperty("kafka.bounded", String.valueOf(bounded));
        p.setProperty("kafka.partitions", "2");
        p.setProperty("opensearch.url", stack.openSearch().orElseThrow().httpUrl());
        p.setProperty("postgres.url", stack.postgres().orElseThrow().jdbcUrl());
        p.setProperty("checkpoint.interval", "2s");
        p.setProperty("parallelism", "1");
        return p;
    }

    /** Runs the job until its input ends ({@code kafka.bounded=true}) or it is cancelled. */
    static void run(Properties properties, PipelineConfig config, String jobName) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                EngramJob.flinkConfiguration(properties, config));
        new EngramPipeline(config).build(env, EngramPipeline.kafkaSource(config), EngramPipeline.sinks(config));
        env.execute(jobName);
    }

    /**
     * Makes the job keep its checkpoints in {@code dir} (kept when it is cancelled or dies) and restore the newest
     * one there, which it returns.
     */
    static Optional<Path> keepCheckpoints(Properties properties, Path dir) {
        properties.setProperty("flink.execution.checkpointing.dir", dir.toAbsolutePath().toUri().toString());
        properties.setProperty("flink.execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
        Optional<Path> newest = latestCheckpoint(dir);
        newest.ifPresent(c -> properties.setProperty("flink.execution.state-recovery.path", c.toUri().toString()));
        return newest;
    }

    /**
     * The newest completed checkpoint or savepoint under any of {@code dirs}: a {@code chk-N} or
     * {@code savepoint-…} folder with its {@code _metadata}, written last.
     */
    static Optional<Path> latestCheckpoint(Path... dirs) {
        Optional<Path> newest = Optional.empty();
        for (Path dir : dirs) {
            if (!Files.isDirectory(dir)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(dir, 3)) {
                Optional<Path> here = files.filter(f -> f.getFileName().toString().equals("_metadata"))
                        .map(Path::getParent)
                        .filter(c -> c.getFileName().toString().startsWith("chk-")
                                || c.getFileName().toString().startsWith("savepoint-"))
                        .max(Comparator.comparingLong(LocalPipeline::modified));
                if (here.isPresent() && (newest.isEmpty() || modified(here.get()) > modified(newest.get()))) {
                    newest = here;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return newest;
    }

    private static long modified(Path checkpoint) {
        try {
            return Files.getLastModifiedTime(checkpoint.resolve("_metadata")).toMillis();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Refuses to start a job that restores no state while its group has committed offsets: continuing after them
     * would skip the records whose effects lived only in the lost state (open sessions, cycles). The message names
     * the ways out; each is the operator's decision (docs/operations.md, "Recovery").
     */
    static void refuseLostState(Properties properties, PipelineConfig config, String restoreHint) {
        if (properties.containsKey("flink.execution.state-recovery.path") || !config.startingOffsets().equals("committed")) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> committed;
        try (Admin admin = Admin.create(config.kafka().config())) {
            committed = admin.listConsumerGroupOffsets(config.consumerGroup()).partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the group's offsets", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the committed offsets of group " + config.consumerGroup(), e);
        }
        boolean read = committed.entrySet().stream()
                .anyMatch(e -> e.getValue() != null && Topics.INPUTS.contains(e.getKey().topic()));
        if (read) {
            throw new IllegalStateException("group " + config.consumerGroup() + " has committed offsets but there is no"
                    + " checkpoint to restore its state from (state.dir " + config.stateDir() + "): continuing after"
                    + " the offsets would lose what only that state held. Restore one with " + restoreHint
                    + ", or replay the input"
                    + " with kafka.starting-offsets=earliest (idempotent writes: OpenSearch ends as before, cycle"
                    + " metrics are recomputed), or start after it with kafka.starting-offsets=latest");
        }
    }
}
