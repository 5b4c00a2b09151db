package io.engram.bench;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * What a bench job's embedding operators counted — texts asked for, texts the model embedded, records given a
 * vector — read from the job's own counters: a Flink metric reporter of the run's clusters (they run in this JVM)
 * keeps every such counter, and {@link #since} sums those registered after a mark.
 */
public final class EmbedTexts implements MetricReporter {

    /** The reporter's setting, as {@code flink.*} keys of a pipeline's properties. */
    static final Map<String, String> SETTINGS = Map.of("flink.metrics.reporter.embed-texts.factory.class",
            Factory.class.getName());
    private static final List<String> NAMES = List.of("embed_texts", "embed_model_texts", "embed_vectors");
    private static final Map<String, List<Counter>> COUNTERS = new ConcurrentHashMap<>();

    /** The texts the embedder was asked for, those the model embedded, and the records given a vector. */
    record Counts(long asked, long model, long vectors) {
    }

    /** How many counters of each name are registered so far: {@link #since} counts those registered after. */
    static Map<String, Integer> mark() {
        Map<String, Integer> mark = new ConcurrentHashMap<>();
        NAMES.forEach(n -> mark.put(n, COUNTERS.getOrDefault(n, List.of()).size()));
        return mark;
    }

    /** The sums of the counters registered since {@code mark}: the jobs run since. */
    static Counts since(Map<String, Integer> mark) {
        return new Counts(sum("embed_texts", mark), sum("embed_model_texts", mark), sum("embed_vectors", mark));
    }

    private static long sum(String name, Map<String, Integer> mark) {
        List<Counter> all = COUNTERS.getOrDefault(name, List.of());
        return all.subList(mark.get(name), all.size()).stream().mapToLong(Counter::getCount).sum();
    }

    @Override
    public void open(MetricConfig config) {
    }

    @Override
    public void close() {
    }

    @Override
    public void notifyOfAddedMetric(Metric metric, String metricName, MetricGroup group) {
        if (metric instanceof Counter counter && NAMES.contains(metricName)) {
            COUNTERS.computeIfAbsent(metricName, n -> new CopyOnWriteArrayList<>()).add(counter);
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String metricName, MetricGroup group) {
        // kept: a finished job's counts are what the bench reads
    }

    /** Builds the reporter for the clusters' configuration. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new EmbedTexts();
        }
    }
}
