package io.engram.launcher;

import io.engram.jobs.EngramJob;
import io.engram.jobs.EngramPipeline;
import io.engram.jobs.PipelineConfig;
import io.engram.client.Topics;
import io.engram.stack.EmbeddedStack;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
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
     * {@code savepoint-…} folder with its {@code _metadata}, written last, one or two levels down. A running job
     * deletes the checkpoints it subsumes, so one that vanishes while it is read is skipped, not an error.
     */
    static Optional<Path> latestCheckpoint(Path... dirs) {
        Optional<Path> newest = Optional.empty();
        long newestWritten = Long.MIN_VALUE;
        for (Path dir : dirs) {
            for (Path child : folders(dir)) {
                for (Path candidate : isCheckpoint(child) ? List.of(child) : folders(child)) {
                    OptionalLong written = isCheckpoint(candidate) ? metadataWritten(candidate) : OptionalLong.empty();
                    if (written.isPresent() && written.getAsLong() > newestWritten) {
                        newest = Optional.of(candidate);
                        newestWritten = written.getAsLong();
                    }
                }
            }
        }
        return newest;
    }

    private static boolean isCheckpoint(Path folder) {
        String name = folder.getFileName().toString();
        return name.startsWith("chk-") || name.startsWith("savepoint-");
    }

    /** The folders in {@code dir}; none if it is missing or was deleted meanwhile. */
    private static List<Path> folders(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(Files::isDirectory).toList();
        } catch (NoSuchFileException | NotDirectoryException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** When the checkpoint's {@code _metadata} was written; empty if it has none (yet, or any longer). */
    private static OptionalLong metadataWritten(Path checkpoint) {
        try {
            return OptionalLong.of(Files.getLastModifiedTime(checkpoint.resolve("_metadata")).toMillis());
        } catch (NoSuchFileException e) {
            return OptionalLong.empty();
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
