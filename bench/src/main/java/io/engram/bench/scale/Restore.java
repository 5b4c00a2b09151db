package io.engram.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.cluster.FlinkRest;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A kill -9 of {@code ./engram run} and its restart: the run is killed right after a checkpoint completes, the same
 * command starts again, and the restore is timed from the new process's start until every task of the job runs
 * (its state restored), and until its first checkpoint after the restore completes.
 */
final class Restore {

    private Restore() {
    }

    /** The restarted run, and its times from the process start. */
    record Restarted(JobProcess job, String jobId, Duration tasksRunning, Duration firstCheckpoint, long stateBytes) {
    }

    static Restarted killAndRestart(JobProcess running, RunSettings run, Path log, String heap, Duration patience)
            throws IOException, InterruptedException {
        JobCheckpoints checkpoints = new JobCheckpoints(run.restUrl());
        String job = checkpoints.runningJob().orElseThrow(() -> new IllegalStateException("no running job to kill"));
        JobCheckpoints.Checkpoint last = checkpoints.awaitNext(job, checkpoints.completed(job), patience, running);
        running.kill();
        JobProcess restarted = JobProcess.run(run.file(), log, heap);
        long deadline = System.nanoTime() + patience.toNanos();
        String restartedJob;
        while ((restartedJob = checkpoints.runningJob().orElse(null)) == null) {
            awaitOrFail(restarted, deadline, "the restarted job running");
        }
        FlinkRest rest = new FlinkRest(run.restUrl());
        while (!allTasksRunning(rest.job(restartedJob))) {
            awaitOrFail(restarted, deadline, "the restarted job's tasks running");
        }
        Duration tasksRunning = restarted.age();
        if (!checkpoints.restored(restartedJob)) {
            throw new IllegalStateException("the restarted job restored no checkpoint (see " + log + ")");
        }
        checkpoints.awaitNext(restartedJob, 0, patience, restarted);
        return new Restarted(restarted, restartedJob, tasksRunning, restarted.age(), last.stateBytes());
    }

    private static boolean allTasksRunning(JsonNode job) {
        boolean running = job.path("state").asText().equals("RUNNING") && job.path("vertices").size() > 0;
        for (JsonNode vertex : job.path("vertices")) {
            running &= vertex.path("status").asText().equals("RUNNING");
        }
        return running;
    }

    private static void awaitOrFail(JobProcess process, long deadline, String what) throws InterruptedException {
        if (!process.alive() || System.nanoTime() > deadline) {
            throw new IllegalStateException(what + ": " + (process.alive() ? "not within the patience" : "the process died"));
        }
        TimeUnit.MILLISECONDS.sleep(100);
    }
}
