package io.engram.bench;

import java.util.Arrays;
import java.util.Locale;

/** Latency samples in milliseconds and their nearest-rank percentiles, as every benchmark here reports them. */
public record Latencies(double[] sortedMillis) {

    /** The samples, sorted; none is an error that says what was measured, not an index out of bounds. */
    public static Latencies of(String what, double[] millis) {
        if (millis.length == 0) {
            throw new IllegalStateException(what + ": no sample was measured");
        }
        double[] sorted = millis.clone();
        Arrays.sort(sorted);
        return new Latencies(sorted);
    }

    public static Latencies ofNanos(String what, long[] nanos) {
        return of(what, Arrays.stream(nanos).mapToDouble(n -> n / 1e6).toArray());
    }

    /** The nearest-rank percentile: the smallest sample at or above a fraction {@code p} of them. */
    public double percentile(double p) {
        int index = (int) Math.ceil(p * sortedMillis.length) - 1;
        return sortedMillis[Math.max(0, Math.min(sortedMillis.length - 1, index))];
    }

    double max() {
        return sortedMillis[sortedMillis.length - 1];
    }

    String summary() {
        return String.format(Locale.ROOT, "p50 %7.1f ms  p95 %7.1f ms  p99 %7.1f ms", percentile(0.50),
                percentile(0.95), percentile(0.99));
    }
}
