package io.engram.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;

/**
 * A pipeline's checkpoint directory ({@code state.dir} of {@code run}, {@code DIR/checkpoints} of {@code up}, a
 * cluster's {@code checkpoints/}): Flink keeps each job's checkpoints in {@code DIR/JOB_ID/chk-N}, and beside them
 * {@value #IDENTITY} records what that job was written for ({@link PipelineIdentity}), written before the job
 * starts. The newest checkpoint restores only into the pipeline it was written for; otherwise the start is refused
 * with what differs and the ways out (docs/operations.md, "Recovery").
 */
final class PipelineState {

    static final String IDENTITY = "engram-identity.properties";

    private final Path dir;

    PipelineState(Path dir) {
        this.dir = dir.toAbsolutePath().normalize();
    }

    Path dir() {
        return dir;
    }

    /**
     * The checkpoint this start restores: none when there is none, or with {@code fresh} (what is there is set
     * aside, never deleted); else the newest, once {@link #check} allows it.
     */
    Optional<Path> restorable(PipelineIdentity now, boolean fresh, String waysOut, Consumer<String> say) {
        if (fresh) {
            setAside(say);
            return Optional.empty();
        }
        Optional<Path> newest = LocalPipeline.latestCheckpoint(dir);
        newest.ifPresent(checkpoint -> check(checkpoint, now, waysOut, say));
        return newest;
    }

    /** Records what the job about to start is written for, before it can complete a checkpoint. */
    void record(JobID job, PipelineIdentity identity) {
        try {
            identity.write(dir.resolve(job.toHexString()).resolve(IDENTITY));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot record the pipeline's identity in " + dir, e);
        }
    }

    /**
     * Refuses a checkpoint written for another pipeline, or by a bounded run for an unbounded one (its splits stop
     * at that run's end offsets and the partitions it finished are never read again); says when an unbounded run's
     * checkpoint is restored by a bounded one, which reads to the end offsets it finds at its start.
     */
    static void check(Path checkpoint, PipelineIdentity now, String waysOut, Consumer<String> say) {
        Optional<PipelineIdentity> written = identityOf(checkpoint);
        if (written.isEmpty()) {
            say.accept("checkpoint " + checkpoint + " does not record what it was written for (it is older than that"
                    + " record): it is restored as this pipeline's");
            return;
        }
        List<String> differences = now.differencesFrom(written.get());
        if (!differences.isEmpty()) {
            throw new Refusal("the state in " + checkpoint + " was written for another pipeline:\n  "
                    + String.join("\n  ", differences) + "\nrestoring it would carry that pipeline's Kafka offsets,"
                    + " sessions, documents and cycles into this one. Ways out: " + waysOut);
        }
        if (written.get().bounded() && !now.bounded()) {
            throw new Refusal("the state in " + checkpoint + " is a bounded run's (kafka.bounded=true): it stops at"
                    + " that run's end offsets and never reads the partitions it finished again, so an unbounded run"
                    + " cannot continue it. Finish it with kafka.bounded=true, or: " + waysOut);
        }
        if (!written.get().bounded() && now.bounded()) {
            say.accept("the state is an unbounded run's: this bounded run reads each partition to the end offset it"
                    + " finds as it starts, then ends");
        }
    }

    /** What the job that wrote this checkpoint or savepoint was written for: beside it, or in it (savepoints). */
    static Optional<PipelineIdentity> identityOf(Path checkpoint) {
        for (Path file : List.of(checkpoint.resolve(IDENTITY), checkpoint.resolveSibling(IDENTITY))) {
            if (Files.isRegularFile(file)) {
                try {
                    return Optional.of(PipelineIdentity.read(file));
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read " + file, e);
                }
            }
        }
        return Optional.empty();
    }

    /** Moves every job's checkpoints into {@code set-aside-TIME/}, one level deeper than a restore looks. */
    private void setAside(Consumer<String> say) {
        List<Path> jobs;
        try (Stream<Path> children = Files.list(dir)) {
            jobs = children.filter(Files::isDirectory)
                    .filter(d -> !d.getFileName().toString().startsWith("set-aside-")).toList();
        } catch (java.nio.file.NoSuchFileException e) {
            return;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (jobs.isEmpty()) {
            return;
        }
        Path aside = dir.resolve("set-aside-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        try {
            Files.createDirectories(aside);
            for (Path job : jobs) {
                Files.move(job, aside.resolve(job.getFileName()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot set the state in " + dir + " aside", e);
        }
        say.accept("--fresh: the state in " + dir + " is set aside in " + aside + " (not restored; delete it once it is"
                + " not needed)");
    }
}
