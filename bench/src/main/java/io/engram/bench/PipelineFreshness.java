package io.engram.bench;

import io.engram.client.EngramProducer;
import io.engram.client.Payload;
import io.engram.jobs.EngramJob;
import io.engram.jobs.EngramPipeline;
import io.engram.jobs.EngramSetup;
import io.engram.jobs.PipelineConfig;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RecordIds;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/** The freshness phase of {@code ./engram bench pipeline}: gateway memories at steady rates on one unbounded job. */
final class PipelineFreshness {

    private final List<Integer> rates;
    private final int seconds;

    /** {@code seconds} of memories at each of {@code rates} per second. */
    PipelineFreshness(List<Integer> rates, int seconds) {
        this.rates = rates;
        this.seconds = seconds;
    }

    private static boolean visible(OpenSearchMemoryStore store, String tenant) {
        return !store.find(tenant, Map.of(), Set.of(RecordType.MEMORY), 10, null, true).isEmpty();
    }

    /** Produce-to-searchable latency of gateway memories at each of the steady rates, on one unbounded pipeline. */
    void run(PrintWriter out, Properties base, OpenSearchMemoryStore store, String kafka) throws Exception {
        Properties p = new Properties();
        p.putAll(base);
        p.setProperty("kafka.group", "bench-freshness");
        p.setProperty("kafka.bounded", "false");
        // only what is produced from now on: memories queued behind the throughput phases' backlog would
        // measure the backlog
        p.setProperty("kafka.starting-offsets", "timestamp:" + System.currentTimeMillis());
        p.setProperty("parallelism", "1");
        PipelineConfig config = PipelineConfig.fromProperties(p);
        EngramSetup.prepare(config, step -> { });
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(EngramJob.flinkConfiguration(p, config));
        new EngramPipeline(config).build(env, EngramPipeline.kafkaSource(config), EngramPipeline.sinks(config));
        JobClient job = env.executeAsync("bench-freshness");
        try (EngramProducer producer = new EngramProducer(kafka)) {
            // warm the job up (model load, index) before measuring
            producer.send(Payload.memory("bench-fresh", "warm-up", "memory", "warm up", List.of(), 0, null, Instant.now()));
            producer.flush();
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (!visible(store, "bench-fresh")) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("freshness: the warm-up memory was not searchable within 120 s");
                }
                Thread.sleep(200);
            }
            for (int rate : rates) {
                Latencies latencies = freshnessAt(rate, producer, store);
                out.printf(Locale.ROOT, "freshness at %d memories/s: %d memories, produce-to-searchable %s, max %.0f ms%n",
                        rate, latencies.sortedMillis().length, latencies.summary(), latencies.max());
                out.flush();
            }
        } finally {
            job.cancel().get();
        }
    }

    /** One tenant's memories sent at {@code rate} for {@code seconds}, each timed from its send to the first poll that finds it. */
    private Latencies freshnessAt(int rate, EngramProducer producer, OpenSearchMemoryStore store) throws Exception {
        String tenant = "bench-fresh-" + rate;
        Map<String, Long> producedAt = new HashMap<>();
        Map<String, Long> visibleAt = new HashMap<>();
        int total = rate * seconds;
        long start = System.nanoTime();
        int sent = 0;
        while (visibleAt.size() < total && System.nanoTime() < start + (seconds + 60) * 1_000_000_000L) {
            long now = System.nanoTime();
            while (sent < total && now - start >= sent * 1_000_000_000L / rate) {
                String id = "fresh-" + sent;
                producedAt.put(RecordIds.memory(tenant, id), System.nanoTime());
                producer.send(Payload.memory(tenant, id, "memory", "fresh memory number " + sent + " about topic "
                        + (sent % 17), List.of(), 0, null, Instant.now()));
                producer.flush();
                sent++;
            }
            List<String> pending = producedAt.keySet().stream().filter(id -> !visibleAt.containsKey(id)).toList();
            if (!pending.isEmpty()) { // ask only for what is not yet seen, so that polling stays cheap at 100/s
                for (MemoryRecord r : store.find(tenant, Map.of("_id", pending), Set.of(RecordType.MEMORY), pending.size(),
                        null, true)) {
                    visibleAt.putIfAbsent(r.id(), System.nanoTime());
                }
            }
            Thread.sleep(20);
        }
        if (visibleAt.size() < total) {
            throw new IllegalStateException("freshness at " + rate + "/s: " + (total - visibleAt.size()) + " of " + total
                    + " memories not searchable a minute after the last was sent");
        }
        return Latencies.of("freshness", visibleAt.entrySet().stream()
                .mapToDouble(e -> (e.getValue() - producedAt.get(e.getKey())) / 1e6).toArray());
    }
}
