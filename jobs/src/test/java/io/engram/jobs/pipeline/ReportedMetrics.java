package io.engram.jobs.pipeline;

import io.engram.jobs.EngramMetrics;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.groups.AbstractMetricGroup;
import org.apache.flink.runtime.testutils.InMemoryReporter;

/**
 * Engram's metrics as a run reported them (an {@link InMemoryReporter} that keeps the metrics of finished tasks),
 * named as Flink's Prometheus reporter names them: {@code engram_<keys>_<name>} plus the key-value labels.
 */
final class ReportedMetrics {

    record Sample(String name, Map<String, String> labels, Metric metric) {
    }

    private final List<Sample> samples = new ArrayList<>();

    ReportedMetrics(InMemoryReporter reporter) {
        for (Map.Entry<MetricGroup, Map<String, Metric>> g : reporter.getMetricsByGroup().entrySet()) {
            String scope = ((AbstractMetricGroup<?>) g.getKey()).getLogicalScope(s -> s, '_');
            int engram = scope.indexOf(EngramMetrics.GROUP);
            if (engram < 0) {
                continue;
            }
            Map<String, String> labels = new HashMap<>();
            g.getKey().getAllVariables().forEach((k, v) -> labels.put(k.substring(1, k.length() - 1), v));
            g.getValue().forEach((name, metric) -> samples.add(new Sample(scope.substring(engram) + "_" + name, labels, metric)));
        }
    }

    /** The sum over every operator and subtask of a counter's (or long gauge's) values with these labels. */
    long sum(String name, String... labels) {
        long total = 0;
        for (Sample s : matching(name, labels)) {
            if (s.metric() instanceof Counter c) {
                total += c.getCount();
            } else if (s.metric() instanceof Gauge<?> gauge) {
                total += ((Number) gauge.getValue()).longValue();
            } else if (s.metric() instanceof Histogram h) {
                total += h.getCount();
            } else {
                throw new IllegalArgumentException(name + " is a " + s.metric().getClass());
            }
        }
        return total;
    }

    /** Each value of a label among the samples of {@code name}, with the sum of its counters. */
    Map<String, Long> byLabel(String name, String label) {
        Map<String, Long> out = new HashMap<>();
        for (Sample s : matching(name)) {
            out.merge(s.labels().get(label), ((Counter) s.metric()).getCount(), Long::sum);
        }
        return out;
    }

    List<Sample> matching(String name, String... labels) {
        List<Sample> out = new ArrayList<>();
        for (Sample s : samples) {
            boolean match = s.name().equals(name);
            for (int i = 0; match && i < labels.length; i += 2) {
                match = labels[i + 1].equals(s.labels().get(labels[i]));
            }
            if (match) {
                out.add(s);
            }
        }
        return out;
    }
}
