package io.engram.bench.scale;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Watches the job load: polls how many sent records are searchable (one count request a second, all tenants) and
 * notes, when a mark is reached, the time and the job process's CPU, so that a span between two marks gives records
 * per second and CPU per record.
 */
final class Ingest {

    private final TenantCounts counts;

    Ingest(TenantCounts counts) {
        this.counts = counts;
    }

    /**
     * A moment of the load: searchable records, monotonic time, the job's CPU so far, and the servers' (this JVM,
     * where OpenSearch and Kafka run, and its child processes but the job: PostgreSQL).
     */
    record Mark(long records, long nanos, Duration cpu, Duration servers) {

        /** Records per second from {@code from} to this. */
        double perSecondSince(Mark from) {
            return (records - from.records) / ((nanos - from.nanos) / 1e9);
        }

        /** Microseconds of the job's CPU per record from {@code from} to this (when both are of one process). */
        double cpuMicrosPerRecordSince(Mark from) {
            return (cpu.toNanos() - from.cpu.toNanos()) / 1e3 / (records - from.records);
        }

        /** The same for the servers. */
        double serversMicrosPerRecordSince(Mark from) {
            return (servers.toNanos() - from.servers.toNanos()) / 1e3 / (records - from.records);
        }
    }

    /** The CPU time of this JVM and of its child processes other than the job's. */
    private static Duration serversCpu(JobProcess job) {
        Duration total = ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
        return ProcessHandle.current().descendants().filter(p -> p.pid() != job.pid())
                .map(p -> p.info().totalCpuDuration().orElse(Duration.ZERO)).reduce(total, Duration::plus);
    }

    /** Waits until at least {@code target} records are searchable; fails when the job dies or {@code patience} ends. */
    Mark await(long target, JobProcess job, Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            boolean alive = job.alive(); // before the count: a run that ended has written all it will
            Duration cpu = job.cpu();
            long n = counts.total(TenantCounts.SENT_TYPES);
            if (n >= target) {
                return new Mark(n, System.nanoTime(), cpu, serversCpu(job));
            }
            if (!alive) {
                throw new IllegalStateException("the job process exited (" + n + " of " + target + " records searchable)");
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(n + " of " + target + " records searchable after " + patience);
            }
            TimeUnit.MILLISECONDS.sleep(n == 0 ? 200 : 1_000);
        }
    }
}
