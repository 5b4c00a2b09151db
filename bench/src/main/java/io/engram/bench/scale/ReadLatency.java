package io.engram.bench.scale;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.bench.FloorQueries;
import io.engram.bench.Latencies;
import io.engram.bench.RawHttp;
import io.engram.model.embed.Embedder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A tenant's reads next to their floor: {@code POST /v1/search} (k = 10) and {@code POST /v1/context} (2,000
 * tokens, a session and user of the tenant) through the memory service, and OpenSearch's own k-NN and BM25 queries
 * (50 deep, the tenant's filter) sent raw, for the same fresh query text. One client runs the four interleaved,
 * query by query; C clients run one kind at a time.
 */
final class ReadLatency {

    static final List<String> KINDS = List.of("knn", "bm25", "search", "context");
    private static final int DEPTH = 50;
    private static final String[] QUESTIONS = {"what did we decide about the budget review",
        "who owns the Kubernetes upgrade", "is anything blocking the mobile app release", "the GDPR data request",
        "remind me about payroll for contractors", "plan for the office move", "the incident with the payment gateway",
        "where are we on switching the CRM", "the support backlog this week", "renewing the cloud contract"};

    private final RawHttp http;
    private final ScaleService service;
    private final String indexUrl;
    private final Embedder embedder;

    /** Reads through {@code service} next to raw ones on {@code index}, queries embedded by {@code embedder}. */
    ReadLatency(RawHttp http, ScaleService service, String openSearch, String index, Embedder embedder) {
        this.http = http;
        this.embedder = embedder;
        this.service = service;
        this.indexUrl = openSearch + "/" + index;
    }

    /** {@code queries} reads of every kind against {@code tenant} at {@code clients} clients. */
    ObjectNode measure(ScaleCorpus.Tenant tenant, int clients, int queries) throws Exception {
        List<List<String>> phases = clients == 1 ? List.of(KINDS) : KINDS.stream().map(List::of).toList();
        ObjectNode out = RawHttp.JSON.createObjectNode().put("tenant", tenant.id()).put("records", tenant.records())
                .put("clients", clients);
        AtomicLong errors = new AtomicLong();
        Map<String, Queue<Double>> stages = new ConcurrentHashMap<>();
        for (List<String> phase : phases) {
            long[][] nanos = new long[phase.size()][queries];
            AtomicInteger next = new AtomicInteger(-5 * clients); // five per client warm up
            ExecutorService pool = Executors.newFixedThreadPool(clients);
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                running.add(pool.submit(() -> {
                    for (int q = next.getAndIncrement(); q < queries; q = next.getAndIncrement()) {
                        Random random = new Random(q * 31L + clients);
                        // a fresh text per query and client count, so no cache answers for the model or the node
                        String text = QUESTIONS[random.nextInt(QUESTIONS.length)] + " " + random.nextInt(1_000_000);
                        float[] vector = embedder.embedQuery(text).vector();
                        for (int k = 0; k < phase.size(); k++) {
                            long t0 = System.nanoTime();
                            boolean ok = read(phase.get(k), tenant, text, vector, random, q >= 0 ? stages : null);
                            if (q >= 0) {
                                nanos[k][q] = System.nanoTime() - t0;
                                if (!ok) {
                                    errors.incrementAndGet();
                                }
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
            pool.shutdown();
            for (int k = 0; k < phase.size(); k++) {
                Latencies l = Latencies.ofNanos(phase.get(k), nanos[k]);
                out.putObject(phase.get(k)).put("p50", l.percentile(0.50)).put("p95", l.percentile(0.95))
                        .put("p99", l.percentile(0.99));
            }
        }
        ObjectNode byStage = out.with("context").putObject("stages");
        stages.forEach((stage, millis) -> {
            Latencies l = Latencies.of(stage, millis.stream().mapToDouble(Double::doubleValue).toArray());
            byStage.putObject(stage).put("p50", l.percentile(0.50)).put("p95", l.percentile(0.95));
        });
        double floor = out.at("/knn/p95").asDouble() + out.at("/bm25/p95").asDouble();
        return out.put("errors", errors.get()).put("context_p95_over_floor", out.at("/context/p95").asDouble() / floor);
    }

    private boolean read(String kind, ScaleCorpus.Tenant tenant, String text, float[] vector, Random random,
                         Map<String, Queue<Double>> stages) {
        String routed = "/_search?routing=" + tenant.id();
        return switch (kind) {
            case "knn" -> http.send("POST", indexUrl + routed, null, FloorQueries.knn(tenant.id(), vector, DEPTH)).status() == 200;
            case "bm25" -> http.send("POST", indexUrl + routed, null, FloorQueries.bm25(tenant.id(), text, DEPTH)).status() == 200;
            case "search" -> http.send("POST", service.url() + "/v1/search", service.key(tenant.id()),
                    RawHttp.JSON.createObjectNode().put("query", text).put("k", 10)).status() == 200;
            default -> {
                int session = random.nextInt(Math.max(1, tenant.records() / 25));
                RawHttp.Answer answer = http.send("POST", service.url() + "/v1/context", service.key(tenant.id()),
                        RawHttp.JSON.createObjectNode().put("query", text).put("budget_tokens", 2_000)
                                .put("session_id", "s" + session).put("user_id", tenant.user(session)));
                if (stages != null) { // the service's own account: where a context's milliseconds go
                    for (String stage : answer.serverTiming().split(",\\s*")) {
                        String[] parts = stage.split(";dur=");
                        if (parts.length == 2) {
                            stages.computeIfAbsent(parts[0], s -> new ConcurrentLinkedQueue<>()).add(Double.parseDouble(parts[1]));
                        }
                    }
                }
                yield answer.status() == 200;
            }
        };
    }
}
