package io.engram.service;

import io.engram.retrieval.ContextService;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The service's own metrics in the Prometheus text format ({@code GET /metrics}): requests per route and status,
 * a latency histogram per route, rate-limited requests and authentication failures. Labels are route templates
 * and status codes, never tenants or ids, so the series stay few.
 */
final class ServiceMetrics {

    private static final double[] BUCKETS_SECONDS = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

    private final Map<String, AtomicLong> requests = new ConcurrentHashMap<>();
    private final Map<String, Histogram> latency = new ConcurrentHashMap<>();
    private final AtomicLong rateLimited = new AtomicLong();
    private final AtomicLong authFailures = new AtomicLong();
    private final AtomicLong quotaRefusals = new AtomicLong();

    private static final class Histogram {
        final AtomicLongArray counts = new AtomicLongArray(BUCKETS_SECONDS.length);
        final AtomicLong count = new AtomicLong();
        final AtomicLong sumNanos = new AtomicLong();
    }

    void record(String route, int status, long nanos) {
        requests.computeIfAbsent(route + "\u0000" + status, k -> new AtomicLong()).incrementAndGet();
        Histogram h = latency.computeIfAbsent(route, k -> new Histogram());
        double seconds = nanos / 1e9;
        for (int i = 0; i < BUCKETS_SECONDS.length; i++) {
            if (seconds <= BUCKETS_SECONDS[i]) {
                h.counts.incrementAndGet(i);
            }
        }
        h.count.incrementAndGet();
        h.sumNanos.addAndGet(nanos);
    }

    void rateLimited() {
        rateLimited.incrementAndGet();
    }

    void quotaRefusal() {
        quotaRefusals.incrementAndGet();
    }

    void authFailure() {
        authFailures.incrementAndGet();
    }

    /** The text, with the gauges of the rule cache's contents ({@code rules}). */
    String prometheusText(ContextService.CachedRules rules) {
        StringBuilder out = new StringBuilder();
        out.append("# HELP engram_service_requests_total Requests answered, by route and status.\n")
                .append("# TYPE engram_service_requests_total counter\n");
        requests.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
            String[] routeAndStatus = e.getKey().split("\u0000");
            out.append("engram_service_requests_total{route=\"").append(routeAndStatus[0]).append("\",status=\"")
                    .append(routeAndStatus[1]).append("\"} ").append(e.getValue().get()).append('\n');
        });
        out.append("# HELP engram_service_request_seconds Time to answer a request, by route.\n")
                .append("# TYPE engram_service_request_seconds histogram\n");
        latency.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
            Histogram h = e.getValue();
            for (int i = 0; i < BUCKETS_SECONDS.length; i++) {
                out.append("engram_service_request_seconds_bucket{route=\"").append(e.getKey()).append("\",le=\"")
                        .append(BUCKETS_SECONDS[i]).append("\"} ").append(h.counts.get(i)).append('\n');
            }
            out.append("engram_service_request_seconds_bucket{route=\"").append(e.getKey()).append("\",le=\"+Inf\"} ")
                    .append(h.count.get()).append('\n');
            out.append("engram_service_request_seconds_sum{route=\"").append(e.getKey()).append("\"} ")
                    .append(h.sumNanos.get() / 1e9).append('\n');
            out.append("engram_service_request_seconds_count{route=\"").append(e.getKey()).append("\"} ")
                    .append(h.count.get()).append('\n');
        });
        single(out, "engram_service_rate_limited_total", "counter", "Requests refused with 429.", rateLimited.get());
        single(out, "engram_service_auth_failures_total", "counter",
                "Requests refused with 401 or 403 (a key unknown, of another tenant, without the scope, suspended).",
                authFailures.get());
        single(out, "engram_service_quota_refusals_total", "counter", "Writes refused past a tenant's quota.",
                quotaRefusals.get());
        single(out, "engram_service_cached_rules", "gauge",
                "Agent-document rules the context path holds (bounded, LRU by tenant).", rules.rules());
        single(out, "engram_service_cached_rule_tenants", "gauge", "Tenants whose rules the context path holds.",
                rules.tenants());
        return out.toString();
    }

    /** A metric of one unlabelled value, with its help and type lines. */
    private static void single(StringBuilder out, String name, String type, String help, long value) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n')
                .append("# TYPE ").append(name).append(' ').append(type).append('\n')
                .append(name).append(' ').append(value).append('\n');
    }
}
