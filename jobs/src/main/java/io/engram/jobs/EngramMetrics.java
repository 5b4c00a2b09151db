package io.engram.jobs;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.HistogramStatistics;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

/**
 * The metrics one operator registers, all under the {@value #GROUP} group (docs/operations.md, "Monitoring",
 * lists them). A label is a key-value group, so Flink's Prometheus reporter exports
 * {@code flink_taskmanager_job_task_operator_engram_<keys>_<name>{<key>="value"}}; labels take values from small
 * fixed sets (topics, kinds, reasons), never tenants or ids. With {@code metrics.enabled=false} the instruments
 * record nothing and nothing is registered. Created in an operator's {@code open}, used on its task thread.
 */
public final class EngramMetrics {

    public static final String GROUP = "engram";
    /** Records read from an input topic, labelled {@code topic} and {@code kind} (rejects included). */
    public static final String RECORDS_IN = "records_in";
    /** Records rejected, labelled {@code reason} (the reject's code). */
    public static final String REJECTS = "rejects";
    /** Values a histogram keeps for its quantiles: the newest 1,024 (about 8 KB each). */
    private static final int HISTOGRAM_WINDOW = 1024;

    private final MetricGroup group;
    private final Map<String, Counter> counters = new HashMap<>();

    private EngramMetrics(MetricGroup group) {
        this.group = group;
    }

    /** Engram's metrics in the operator's group, or instruments that record nothing when {@code enabled} is false. */
    public static EngramMetrics of(MetricGroup operatorGroup, boolean enabled) {
        return new EngramMetrics(enabled ? operatorGroup.addGroup(GROUP) : null);
    }

    /** A counter, labelled by key-value pairs ({@code "reason", code}); the same name and labels give the same counter. */
    public Counter counter(String name, String... labels) {
        if (labels.length % 2 != 0) {
            throw new IllegalArgumentException("labels come in key-value pairs: " + String.join(",", labels));
        }
        String key = name + "\u0000" + String.join("\u0000", labels);
        return counters.computeIfAbsent(key, k -> {
            if (group == null) {
                return NOTHING;
            }
            MetricGroup g = group;
            for (int i = 0; i < labels.length; i += 2) {
                g = g.addGroup(labels[i], labels[i + 1]);
            }
            return g.counter(name);
        });
    }

    /** A histogram over the newest values recorded (its quantiles are those of that window). */
    public Histogram histogram(String name) {
        return group == null ? NO_HISTOGRAM : group.histogram(name, new DescriptiveStatisticsHistogram(HISTOGRAM_WINDOW));
    }

    public <T> void gauge(String name, Gauge<T> gauge) {
        if (group != null) {
            group.gauge(name, gauge);
        }
    }

    private static final Counter NOTHING = new Counter() {
        @Override
        public void inc() {
        }

        @Override
        public void inc(long n) {
        }

        @Override
        public void dec() {
        }

        @Override
        public void dec(long n) {
        }

        @Override
        public long getCount() {
            return 0;
        }
    };

    private static final Histogram NO_HISTOGRAM = new Histogram() {
        @Override
        public void update(long value) {
        }

        @Override
        public long getCount() {
            return 0;
        }

        @Override
        public HistogramStatistics getStatistics() {
            throw new UnsupportedOperationException("metrics are disabled: nothing is registered to report");
        }
    };
}
