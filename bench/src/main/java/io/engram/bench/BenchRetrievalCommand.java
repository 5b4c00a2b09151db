package io.engram.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.launcher.LiveProduct;
import io.engram.retrieval.Retrieval;
import io.engram.store.MemoryIndexTemplate;
import io.engram.store.MemoryStore;
import io.engram.store.OpenSearchConnection;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The read path against its floor, on the live embedded product ({@code ./engram up}'s): one tenant among
 * twenty holds N records (and two agent documents' rules); per query text, OpenSearch's own k-NN and BM25
 * queries sent raw (the floor), {@code POST /v1/search} and {@code POST /v1/context} through HTTP, and the
 * query embedding alone — p50/p95/p99 at one client and at C concurrent clients, on the same node at the same
 * moment.
 */
@Command(name = "retrieval", mixinStandardHelpOptions = true,
        description = "Read-path latency (search, context) next to OpenSearch's own k-NN and BM25 queries, at growing record counts.")
final class BenchRetrievalCommand implements Callable<Integer> {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant NOW = Instant.now();
    private static final String TENANT = "bench-tenant";
    /** The candidate depth of each retriever of {@code /v1/search} and {@code /v1/context}: the floor asks as deep. */
    private static final int DEPTH = 50;
    private static final int RULES_PER_TIER = 60;
    private static final List<String> KINDS = List.of("embed", "knn", "bm25", "search", "context");

    @Spec
    CommandSpec spec;

    @Option(names = "--records", split = ",", paramLabel = "N", description = "Record counts of the measured tenant (default: 10000,100000).")
    List<Integer> records = List.of(10_000, 100_000);

    @Option(names = "--other-tenants", paramLabel = "N", description = "Other tenants sharing the index (default: ${DEFAULT-VALUE}).")
    int otherTenants = 19;

    @Option(names = "--other-records", paramLabel = "N", description = "Records of each other tenant (default: ${DEFAULT-VALUE}).")
    int otherRecords = 1_000;

    @Option(names = "--queries", paramLabel = "N", description = "Measured queries per kind and client count (default: ${DEFAULT-VALUE}).")
    int queries = 200;

    @Option(names = "--clients", paramLabel = "C", description = "Concurrent clients of the second round (default: ${DEFAULT-VALUE}).")
    int clients = 8;

    @Option(names = "--json", description = "Print one JSON object per record count instead of the table.")
    boolean json;

    /** The service's own account of where each measured read's time went (Server-Timing), by kind and stage. */
    private final Map<String, Map<String, ConcurrentLinkedQueue<Double>>> stages = new ConcurrentHashMap<>();
    private final HttpClient http = HttpClient.newBuilder().executor(Executors.newFixedThreadPool(16)).build();

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        List<String> tenants = new ArrayList<>(List.of(TENANT));
        IntStream.range(0, otherTenants).forEach(t -> tenants.add("other-" + t));
        Properties settings = new Properties();
        settings.setProperty("service.rate-limit.per-second", "1000000"); // measure the read path, not the limiter
        settings.setProperty("service.rate-limit.burst", "1000000");
        ArrayNode results = JSON.createArrayNode();
        try (LiveProduct product = LiveProduct.start(Optional.empty(), 0, tenants, settings, line -> { });
             Retrieval retrieval = Retrieval.open(OpenSearchConnection.of(product.pipeline().getProperty("opensearch.url")),
                     index(product))) {
            Target target = new Target(product, retrieval);
            BenchCorpus corpus = new BenchCorpus(retrieval, 4_000, NOW);
            MemoryStore store = retrieval.store();
            for (int t = 0; t < otherTenants; t++) {
                corpus.load(store, "other-" + t, 0, otherRecords);
            }
            corpus.loadRules(store, TENANT, RULES_PER_TIER);
            int loaded = 0;
            for (int n : records) {
                long start = System.nanoTime();
                corpus.load(store, TENANT, loaded, n);
                store.refresh();
                awaitNoMerges(target);
                loaded = n;
                if (!json) {
                    out.printf(Locale.ROOT, "%n%,d records for %s (+ %d tenants x %,d, %d rules), loaded in %.0f s%n", n,
                            TENANT, otherTenants, otherRecords, 2 * RULES_PER_TIER, (System.nanoTime() - start) / 1e9);
                }
                ObjectNode result = JSON.createObjectNode().put("records", n);
                measure(target, corpus, n, 1, result);
                measure(target, corpus, n, clients, result.putObject("concurrent").put("clients", clients));
                results.add(result);
                if (!json) {
                    print(out, result);
                }
                out.flush();
            }
        }
        if (json) {
            out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(results));
        }
        out.flush();
        return 0;
    }

    /** The product under measurement, and the raw OpenSearch address beneath it. */
    private record Target(LiveProduct product, Retrieval retrieval) {
        String openSearch() {
            return product.pipeline().getProperty("opensearch.url") + "/" + index(product);
        }
    }

    private static String index(LiveProduct product) {
        return product.pipeline().getProperty("opensearch.index", MemoryIndexTemplate.INDEX);
    }

    /**
     * {@code queries} queries of every kind at {@code concurrency} clients, into {@code result}. One client runs
     * the kinds interleaved, query by query, so that each meets the node in the same state (merges, caches); C
     * clients run one kind at a time, so that each kind's throughput is its own.
     */
    private void measure(Target target, BenchCorpus corpus, int round, int concurrency, ObjectNode result) throws Exception {
        List<List<String>> phases = concurrency == 1 ? List.of(KINDS) : KINDS.stream().map(List::of).toList();
        ObjectNode errors = JSON.createObjectNode();
        for (List<String> phase : phases) {
            Map<String, long[]> nanos = new LinkedHashMap<>();
            Map<String, AtomicLong> failed = new LinkedHashMap<>();
            phase.forEach(kind -> {
                nanos.put(kind, new long[queries]);
                failed.put(kind, new AtomicLong());
            });
            stages.clear();
            AtomicInteger next = new AtomicInteger(-10 * concurrency); // the first ten per client warm up
            AtomicLong measuredFrom = new AtomicLong(Long.MAX_VALUE);
            ExecutorService pool = Executors.newFixedThreadPool(concurrency);
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < concurrency; c++) {
                running.add(pool.submit(() -> {
                    for (int q = next.getAndIncrement(); q < queries; q = next.getAndIncrement()) {
                        if (q == 0) {
                            measuredFrom.set(System.nanoTime());
                        }
                        for (String kind : phase) {
                            // a fresh text per query, kind and round, so that no embedding cache hides the model's cost
                            Random random = new Random(31L * q + round);
                            String text = corpus.texts.get(random.nextInt(corpus.texts.size())) + " " + kind + q + "r"
                                    + round + "c" + concurrency;
                            // the floor's k-NN query gets its vector before the clock starts: the embedding is timed apart
                            float[] vector = kind.equals("knn") ? target.retrieval().embedder().embedQuery(text).vector() : null;
                            long t0 = System.nanoTime();
                            boolean ok = run(target, kind, text, vector, random, q >= 0);
                            long elapsed = System.nanoTime() - t0;
                            if (q >= 0) {
                                nanos.get(kind)[q] = elapsed;
                                if (!ok) {
                                    failed.get(kind).incrementAndGet();
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
            double seconds = (System.nanoTime() - measuredFrom.get()) / 1e9;
            for (String kind : phase) {
                Latencies l = Latencies.ofNanos(kind, nanos.get(kind));
                ObjectNode node = kind.equals("knn") || kind.equals("bm25")
                        ? (result.has("floor") ? (ObjectNode) result.get("floor") : result.putObject("floor")).putObject(kind)
                        : result.putObject(kind);
                node.put("p50", l.percentile(0.50)).put("p95", l.percentile(0.95)).put("p99", l.percentile(0.99));
                if (phase.size() == 1) {
                    node.put("per_second", queries / seconds);
                }
                if (stages.containsKey(kind)) {
                    ObjectNode byStage = node.putObject("stages");
                    stages.get(kind).forEach((stage, millis) -> {
                        Latencies sl = Latencies.of(stage, millis.stream().mapToDouble(Double::doubleValue).toArray());
                        byStage.putObject(stage).put("p50", sl.percentile(0.50)).put("p95", sl.percentile(0.95));
                    });
                }
                errors.put(kind, failed.get(kind).get());
            }
        }
        result.set("errors", errors);
    }

    /** Waits until the node merges no segment: a bulk load leaves merges running that no steady index has. */
    private void awaitNoMerges(Target target) throws Exception {
        URI stats = URI.create(target.product().pipeline().getProperty("opensearch.url") + "/_nodes/stats/indices/merge");
        long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
        while (System.nanoTime() < deadline) {
            HttpResponse<String> answer = http.send(HttpRequest.newBuilder(stats).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200) {
                throw new IllegalStateException("GET " + stats + " answered " + answer.statusCode() + ": " + answer.body());
            }
            long merging = 0;
            for (JsonNode node : JSON.readTree(answer.body()).path("nodes")) {
                merging += node.at("/indices/merges/current").asLong();
            }
            if (merging == 0) {
                return;
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("the node was still merging segments ten minutes after the load");
    }

    /** One query of {@code kind}; false when the answer was not a success. */
    private boolean run(Target target, String kind, String text, float[] vector, Random random, boolean measured)
            throws Exception {
        switch (kind) {
            case "embed" -> {
                target.retrieval().embedder().embedQuery(text);
                return true;
            }
            case "knn" -> {
                return rawSearch(target, FloorQueries.knn(TENANT, vector, DEPTH));
            }
            case "bm25" -> {
                return rawSearch(target, FloorQueries.bm25(TENANT, text, DEPTH));
            }
            case "search" -> {
                ObjectNode body = JSON.createObjectNode().put("query", text).put("k", 10);
                return post(target, kind, "/v1/search", body, measured);
            }
            default -> {
                ObjectNode body = JSON.createObjectNode().put("query", text).put("budget_tokens", 2_000)
                        .put("session_id", "s" + random.nextInt(50)).put("user_id", "u1");
                return post(target, kind, "/v1/context", body, measured);
            }
        }
    }

    private boolean rawSearch(Target target, ObjectNode body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(target.openSearch() + "/_search?routing="
                        + URLEncoder.encode(TENANT, StandardCharsets.UTF_8))).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        return response.statusCode() == 200 && JSON.readTree(response.body()).at("/hits/hits").size() > 0;
    }

    /** Posts to the service; a measured answer's Server-Timing stages join {@link #stages} under {@code kind}. */
    private boolean post(Target target, String kind, String path, ObjectNode body, boolean measured) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(target.product().apiUrl() + path))
                .timeout(Duration.ofSeconds(60)).header("Authorization", "Bearer " + target.product().keys().get(TENANT))
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
        HttpResponse<Void> response = http.send(request, HttpResponse.BodyHandlers.discarding());
        if (measured) {
            for (String stage : response.headers().firstValue("Server-Timing").orElse("").split(",\\s*")) {
                String[] parts = stage.split(";dur=");
                if (parts.length == 2) {
                    stages.computeIfAbsent(kind, k -> new ConcurrentHashMap<>())
                            .computeIfAbsent(parts[0], k -> new ConcurrentLinkedQueue<>()).add(Double.parseDouble(parts[1]));
                }
            }
        }
        return response.statusCode() == 200;
    }

    private static void print(PrintWriter out, JsonNode result) {
        for (JsonNode run : List.of(result, result.get("concurrent"))) {
            int c = run.has("clients") ? run.get("clients").asInt() : 1;
            out.printf(Locale.ROOT, "  %d client(s)%n", c);
            for (String kind : KINDS) {
                JsonNode k = run.has(kind) ? run.get(kind) : run.get("floor").get(kind);
                String label = switch (kind) {
                    case "embed" -> "query embedding";
                    case "knn" -> "floor: raw k-NN (50)";
                    case "bm25" -> "floor: raw BM25 (50)";
                    case "search" -> "POST /v1/search (k=10)";
                    default -> "POST /v1/context (2000 tokens)";
                };
                out.printf(Locale.ROOT, "    %-32s p50 %7.1f ms  p95 %7.1f ms  p99 %7.1f ms  %s%d errors%n", label,
                        k.get("p50").asDouble(), k.get("p95").asDouble(), k.get("p99").asDouble(),
                        k.has("per_second") ? String.format(Locale.ROOT, "%7.1f/s  ", k.get("per_second").asDouble()) : "",
                        run.get("errors").get(kind).asLong());
                if (k.has("stages")) {
                    StringBuilder line = new StringBuilder();
                    k.get("stages").properties().forEach(e -> line.append(String.format(Locale.ROOT, "  %s %.1f/%.1f",
                            e.getKey(), e.getValue().get("p50").asDouble(), e.getValue().get("p95").asDouble())));
                    out.printf(Locale.ROOT, "      in the service, ms p50/p95:%s%n", line);
                }
            }
        }
        JsonNode floor = result.get("floor");
        double budget = floor.at("/knn/p95").asDouble() + floor.at("/bm25/p95").asDouble() + result.at("/embed/p95").asDouble();
        out.printf(Locale.ROOT, "  context p95 / (k-NN p95 + BM25 p95 + embedding p95) = %.2f%n",
                result.at("/context/p95").asDouble() / budget);
    }
}
