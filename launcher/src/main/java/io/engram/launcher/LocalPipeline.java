package io.engram.launcher;

import io.engram.jobs.EngramJob;
import io.engram.jobs.EngramPipeline;
import io.engram.jobs.EngramSetup;
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
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptionsInternal;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.common.TopicPartition;

/**
 * The Engram pipeline on a local Flink MiniCluster, the same {@link EngramPipeline} a cluster runs: what
 * {@code run} executes against external servers, {@code up} live over the embedded stack, and {@code demo} and
 * {@code eval} over it to the end of their input. {@code run} and {@code up} keep their checkpoints on disk and
 * resume from the newest (docs/operations.md, "Recovery").
 */
final class LocalPipeline {

    /** The Flink setting of the checkpoint or savepoint a job restores. */
    static final String RECOVERY_PATH = "flink.execution.state-recovery.path";

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

    /**
     * How a start treats the state it finds: {@code fresh} sets it aside instead of restoring it; {@code waysOut}
     * completes the refusal of state written for another pipeline, {@code restoreHint} the refusal of committed
     * offsets without state (how to restore their state).
     */
    record Restore(boolean fresh, String waysOut, String restoreHint) {
    }

    /** A job ready to start: its id, and the checkpoint it restores. */
    record Prepared(JobID job, Optional<Path> restored) {
    }

    /** Runs the job until its input ends ({@code kafka.bounded=true}) or it is cancelled. */
    static JobExecutionResult run(Properties properties, PipelineConfig config, String jobName) throws Exception {
        return run(properties, config, jobName, new JobID());
    }

    static JobExecutionResult run(Properties properties, PipelineConfig config, String jobName, JobID job) throws Exception {
        return environment(properties, config, job).execute(jobName);
    }

    /** The pipeline built on a local environment whose job has the given id (its checkpoints go under it). */
    static StreamExecutionEnvironment environment(Properties properties, PipelineConfig config, JobID job) {
        Configuration flink = EngramJob.flinkConfiguration(properties, config);
        flink.set(PipelineOptionsInternal.PIPELINE_FIXED_JOB_ID, job.toHexString());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
        new EngramPipeline(config).build(env, EngramPipeline.kafkaSource(config), EngramPipeline.sinks(config));
        return env;
    }

    /**
     * Readies a pipeline that keeps its checkpoints in {@code state}: restores the newest one there if it was
     * written for this pipeline (else refuses), refuses offsets without their state, sets up the topics, the index
     * and the migrations, and records what the new job's checkpoints are written for. Says what it restores.
     */
    static Prepared prepare(Properties properties, PipelineConfig config, PipelineIdentity now, PipelineState state,
                         Restore restore, Consumer<String> say) throws Exception {
        Optional<Path> restored = state.restorable(now, restore.fresh(), restore.waysOut(), say);
        keepCheckpoints(properties, state.dir());
        restored.ifPresent(c -> properties.setProperty(RECOVERY_PATH, c.toUri().toString()));
        say.accept(restored.map(c -> "restoring the state of checkpoint " + c)
                .orElse("no checkpoint in " + state.dir() + ": the job starts without state"));
        refuseLostState(properties, config, restore.restoreHint());
        EngramSetup.prepare(config, say::accept);
        JobID job = new JobID();
        state.record(job, PipelineIdentity.of(config)); // the topics and the index exist now
        return new Prepared(job, restored);
    }

    /** Makes the job keep its checkpoints in {@code dir}, also when it is cancelled or dies. */
    static void keepCheckpoints(Properties properties, Path dir) {
        properties.setProperty("flink.execution.checkpointing.dir", dir.toAbsolutePath().toUri().toString());
        properties.setProperty("flink.execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
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
        if (properties.containsKey(RECOVERY_PATH) || !config.startingOffsets().equals("committed")) {
            return;
        }
        Map<TopicPartition, Long> committed;
        try {
            committed = InputOffsets.committed(config.kafka(), config.consumerGroup());
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the committed offsets of group " + config.consumerGroup() + ": "
                    + FailureReason.of(e), e);
        }
        boolean read = committed.entrySet().stream()
                .anyMatch(e -> e.getValue() >= 0 && Topics.INPUTS.contains(e.getKey().topic()));
        if (read) {
            throw new Refusal("group " + config.consumerGroup() + " has committed offsets but there is no"
                    + " checkpoint to restore its state from: continuing after"
                    + " the offsets would lose what only that state held. Restore one with " + restoreHint
                    + ", or replay the input"
                    + " with kafka.starting-offsets=earliest (idempotent writes: OpenSearch ends as before, cycle"
                    + " metrics are recomputed), or start after it with kafka.starting-offsets=latest");
        }
    }
}
