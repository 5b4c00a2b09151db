package io.engram.bench;

import io.engram.jobs.EngramJob;
import io.engram.jobs.EngramPipeline;
import io.engram.jobs.EngramSetup;
import io.engram.jobs.PipelineConfig;
import io.engram.model.embed.OnnxEmbedder;
import io.engram.model.retrieval.RecordType;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;

/**
 * The pipeline's throughput phase of {@code ./engram bench pipeline}: one bounded job per run on the run's shared
 * clusters, timed from its first searchable record to its last, and the embedder alone on the same texts.
 */
final class PipelineThroughput {

    private final SharedMiniClusters clusters;

    PipelineThroughput(SharedMiniClusters clusters) {
        this.clusters = clusters;
    }

    /**
     * Records per second from the first searchable to the last of {@code expected} (type null: chunks): what was
     * produced since {@code producedFrom}, read by a job of its own (Kafka group {@code bench-RUN}) into an index of
     * its own.
     */
    Measured measure(Properties base, String run, long producedFrom, RecordType type, int expected)
            throws Exception {
        Properties p = new Properties();
        p.putAll(base);
        // the phase's own input only: a documents run re-reading the turns would measure both
        p.setProperty("kafka.starting-offsets", "timestamp:" + producedFrom);
        p.setProperty("kafka.group", "bench-" + run);
        p.setProperty("opensearch.index", base.getProperty("opensearch.index") + "-" + run);
        p.putAll(EmbedTexts.SETTINGS);
        PipelineConfig config = PipelineConfig.fromProperties(p);
        EngramSetup.prepare(config, step -> { }); // the run's index exists before its poller counts in it
        SearchableCount searchable = new SearchableCount(p.getProperty("opensearch.url"),
                p.getProperty("opensearch.index"), type == null ? Set.of(RecordType.INVARIANT, RecordType.LORE) : Set.of(type));
        AtomicReference<RuntimeException> pollerFailure = new AtomicReference<>();
        AtomicLong first = new AtomicLong();
        AtomicLong last = new AtomicLong();
        AtomicReference<CpuAccount> cpuAtFirst = new AtomicReference<>();
        AtomicReference<CpuAccount> cpuAtLast = new AtomicReference<>();
        // the poller shares the job's core: one plain count request over the run's own index (all of its
        // tenants) per poll, polls close together only where they time something — until the first record and
        // near the last, which the rate so far predicts — so the harness takes as little of the core as it can
        Thread poller = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    long n = searchable.get();
                    long now = System.nanoTime();
                    if (n > 0 && first.compareAndSet(0, now)) {
                        cpuAtFirst.set(CpuAccount.now());
                        cpuAtLast.set(cpuAtFirst.get());
                    }
                    if (n >= expected) {
                        last.compareAndSet(0, now);
                        cpuAtLast.set(cpuAtLast.get().updated());
                        return;
                    }
                    // a snapshot reads every thread's CPU time, ~1 ms on the job's core: once a second is often
                    // enough to keep the threads that end between two
                    if (first.get() != 0 && now - cpuAtLast.get().takenAtNanos() > 1_000_000_000L) {
                        cpuAtLast.set(cpuAtLast.get().updated());
                    }
                    Thread.sleep(nextPollMillis(n, expected, first.get() == 0 ? 0 : now - first.get()));
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) { // reported by the main thread; polling on would spin
                    pollerFailure.set(e);
                    return;
                }
            }
        });
        poller.start();
        Configuration flink = EngramJob.flinkConfiguration(p, config);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flink);
        new EngramPipeline(config).build(env, EngramPipeline.kafkaSource(config), EngramPipeline.sinks(config));
        StreamGraph job = env.getStreamGraph();
        job.setJobName("bench-" + run);
        Map<String, Integer> countersBefore = EmbedTexts.mark();
        clusters.execute(job.getJobGraph(), flink, Math.max(1, config.parallelism()));
        poller.join(30_000);
        poller.interrupt();
        if (pollerFailure.get() != null) {
            throw new IllegalStateException(run + ": counting the searchable records failed", pollerFailure.get());
        }
        if (last.get() == 0) {
            throw new IllegalStateException(run + ": not every record became searchable");
        }
        return new Measured(expected / ((last.get() - first.get()) / 1e9),
                cpuAtLast.get().perRecordSince(cpuAtFirst.get(), expected), EmbedTexts.since(countersBefore));
    }

    /**
     * How long the poller sleeps after counting {@code n} of {@code expected} records {@code sinceFirstNanos} after
     * the first: 50 ms before the first and near the end, up to a second in between (half the time the rate so
     * far predicts is left), so the run's two ends are timed to 50 ms with a few dozen requests.
     */
    static long nextPollMillis(long n, long expected, long sinceFirstNanos) {
        if (n <= 0 || sinceFirstNanos <= 0) {
            return 50;
        }
        double leftMillis = (expected - n) * (sinceFirstNanos / 1e6) / n;
        return Math.max(50, Math.min(1_000, (long) (leftMillis / 2)));
    }

    static Measured embedderAlone(OnnxEmbedder embedder, List<String> texts) {
        embedder.embedDocuments(texts.subList(0, Math.min(64, texts.size()))); // warm-up
        CpuAccount cpu = CpuAccount.now();
        long t0 = System.nanoTime();
        for (int i = 0; i < texts.size(); i += 32) {
            embedder.embedDocuments(texts.subList(i, Math.min(i + 32, texts.size())));
        }
        return new Measured(texts.size() / ((System.nanoTime() - t0) / 1e9),
                CpuAccount.now().perRecordSince(cpu, texts.size()),
                new EmbedTexts.Counts(texts.size(), texts.size(), texts.size()));
    }

    /** Records per second, the CPU per record by thread group over the same span, and the texts embedded. */
    record Measured(double perSecond, String cpu, EmbedTexts.Counts texts) {
    }
}
