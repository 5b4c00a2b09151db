package io.engram.bench;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.launcher.LiveProduct;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The memory service under load, through real HTTP against the live embedded product ({@code ./engram up}'s):
 * N clients, each its tenant's, mix writes (a turn, a memory) and reads (search, a 1,000-token context through
 * {@code POST /v1/context} or through the MCP endpoint's {@code recall} tool, with the Java MCP SDK's client) for a
 * while; a probe writes a memory every half second and polls until it is readable. Per client count: requests
 * per second, p50/p95/p99 per endpoint, write-to-visible p50/p99 and the errors (any answer but 2xx).
 */
@Command(name = "api", mixinStandardHelpOptions = true,
        description = "Memory service throughput and latency per endpoint, and write-to-visible, at N concurrent clients.")
final class BenchApiCommand implements Callable<Integer> {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> TENANTS = List.of("bench-a", "bench-b", "bench-c", "bench-d");
    private static final String[] TOPICS = {"the quarterly budget review", "migrating the billing service",
            "hiring a data engineer", "the office move to the harbour building", "renewing the cloud contract",
            "the staging database restore", "invoices in euros", "the on-call rota", "a kayak trip on the fjord"};
    /** The mix: 20 % turns, 20 % memories, 30 % search, 15 % context over HTTP and 15 % over MCP (tool recall). */
    private static final String MCP_RECALL = "MCP recall";
    private static final String[] ROUTES = {"POST /v1/turns", "POST /v1/memories", "POST /v1/search", "POST /v1/context",
        MCP_RECALL};

    @Spec
    CommandSpec spec;

    @Option(names = "--clients", split = ",", paramLabel = "N", description = "Concurrent clients, one run each (default: 1,8,32).")
    List<Integer> clients = List.of(1, 8, 32);

    @Option(names = "--duration", paramLabel = "SECONDS", description = "Seconds per run (default: ${DEFAULT-VALUE}).")
    int durationSeconds = 60;

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    boolean json;

    @Option(names = "--metering", description = "Measure the service with quotas and usage metering on and off, side by"
            + " side: two replicas over the same product, loaded at the same time (a warm-up round, then three).")
    boolean metering;

    private final HttpClient http = HttpClient.newBuilder().executor(Executors.newFixedThreadPool(8)).build();

    /** A service to load: its address and each tenant's key. */
    record Target(String url, Map<String, String> keys) {
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Properties settings = new Properties();
        settings.setProperty("service.rate-limit.per-second", "1000000"); // measure the service, not the limiter
        settings.setProperty("service.rate-limit.burst", "1000000");
        ArrayNode runs = JSON.createArrayNode();
        try (LiveProduct product = LiveProduct.start(Optional.empty(), 0, TENANTS, settings, line -> { })) {
            Target live = new Target(product.apiUrl(), product.keys());
            seed(live);
            for (int n : clients) {
                List<ObjectNode> measured = metering ? MeteringComparison.measure(product, settings, n,
                        target -> measure(target, n)) : List.of(measure(live, n));
                for (ObjectNode run : measured) {
                    runs.add(run);
                    if (!json) {
                        print(out, run);
                    }
                }
            }
        }
        if (json) {
            ObjectNode root = JSON.createObjectNode().put("duration_seconds", durationSeconds);
            root.set("runs", runs);
            out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root));
        }
        out.flush();
        return 0;
    }

    /** 200 memories and a 40-turn session per tenant, so reads have something to find; waits until they are. */
    private void seed(Target product) throws Exception {
        Random random = new Random(7);
        for (String tenant : TENANTS) {
            ArrayNode memories = JSON.createArrayNode();
            for (int i = 0; i < 200; i++) {
                memories.addObject().put("text", "Note " + i + " about " + TOPICS[random.nextInt(TOPICS.length)]
                        + " and " + TOPICS[random.nextInt(TOPICS.length)] + ".");
            }
            post(product, tenant, "/v1/memories", JSON.createObjectNode().set("records", memories));
            ArrayNode turns = JSON.createArrayNode();
            for (int i = 0; i < 40; i++) {
                turns.add(turn("seed", i, random));
            }
            post(product, tenant, "/v1/turns", JSON.createObjectNode().set("records", turns));
        }
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        for (String tenant : TENANTS) {
            while (get(product, tenant, "/v1/memories?limit=100&type=memory").get("records").size() < 100) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the seed memories of " + tenant + " did not become readable");
                }
                TimeUnit.MILLISECONDS.sleep(200);
            }
        }
    }

    private static ObjectNode turn(String session, long seq, Random random) {
        return JSON.createObjectNode().put("session_id", session).put("user_id", "u-" + session)
                .put("turn_id", "t" + seq).put("seq", seq).put("role", seq % 2 == 0 ? "user" : "assistant")
                .put("text", (seq % 2 == 0 ? "Can you help me with " : "Here is a plan for ")
                        + TOPICS[random.nextInt(TOPICS.length)] + " (" + seq + ")?");
    }

    ObjectNode measure(Target product, int n) throws Exception {
        Map<String, ConcurrentLinkedQueue<Long>> latencies = new ConcurrentHashMap<>();
        for (String route : ROUTES) {
            latencies.put(route, new ConcurrentLinkedQueue<>());
        }
        ConcurrentLinkedQueue<Long> visible = new ConcurrentLinkedQueue<>();
        AtomicLong errors = new AtomicLong();
        AtomicLong requests = new AtomicLong();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(durationSeconds);
        ExecutorService pool = Executors.newFixedThreadPool(n + 1);
        List<Future<?>> running = new ArrayList<>();
        for (int c = 0; c < n; c++) {
            int client = c;
            running.add(pool.submit(() -> {
                Random random = new Random(client);
                String tenant = TENANTS.get(client % TENANTS.size());
                String session = "load-" + n + "-" + client;
                long seq = 0;
                try (McpSyncClient mcp = mcpClient(product, tenant)) {
                    while (System.nanoTime() < end) {
                        int pick = random.nextInt(20);
                        String route = ROUTES[pick < 4 ? 0 : pick < 8 ? 1 : pick < 14 ? 2 : pick < 17 ? 3 : 4];
                        ObjectNode body = switch (route) {
                            case "POST /v1/turns" -> turn(session, seq++, random);
                            case "POST /v1/memories" -> JSON.createObjectNode().put("text", "Load note " + client + "-"
                                    + seq++ + " on " + TOPICS[random.nextInt(TOPICS.length)] + ".");
                            case "POST /v1/search" -> JSON.createObjectNode().put("query", TOPICS[random.nextInt(TOPICS.length)])
                                    .put("k", 10);
                            default -> JSON.createObjectNode().put("query", "what did we decide about "
                                    + TOPICS[random.nextInt(TOPICS.length)]).put("budget_tokens", 1000).put("session_id", session);
                        };
                        long started = System.nanoTime();
                        boolean ok = route.equals(MCP_RECALL) ? recall(mcp, body)
                                : send(product, tenant, route.substring(5), body) / 100 == 2;
                        latencies.get(route).add(System.nanoTime() - started);
                        requests.incrementAndGet();
                        if (!ok) {
                            errors.incrementAndGet();
                        }
                    }
                }
                return null;
            }));
        }
        running.add(pool.submit(() -> { // the write-to-visible probe
            long i = 0;
            while (System.nanoTime() < end) {
                long started = System.nanoTime();
                ObjectNode answer = post(product, TENANTS.get(0), "/v1/memories", JSON.createObjectNode()
                        .put("text", "Probe " + n + "-" + i++ + " " + started));
                String path = "/v1/memories/" + URLEncoder.encode(answer.get("accepted").get(0).asText(), StandardCharsets.UTF_8);
                while (status(product, TENANTS.get(0), path) != 200) {
                    if (System.nanoTime() - started > TimeUnit.SECONDS.toNanos(60)) {
                        throw new IllegalStateException("a probe memory stayed invisible for a minute");
                    }
                    TimeUnit.MILLISECONDS.sleep(10);
                }
                visible.add(System.nanoTime() - started);
                TimeUnit.MILLISECONDS.sleep(500);
            }
            return null;
        }));
        for (Future<?> f : running) {
            f.get();
        }
        pool.shutdown();
        ObjectNode run = JSON.createObjectNode().put("clients", n)
                .put("requests_per_second", requests.get() / (double) durationSeconds).put("errors", errors.get());
        ObjectNode endpoints = run.putObject("endpoints");
        for (String route : ROUTES) {
            Latencies l = Latencies.ofNanos(route, latencies.get(route).stream().mapToLong(Long::longValue).toArray());
            endpoints.putObject(route).put("requests", l.sortedMillis().length).put("p50", l.percentile(0.5))
                    .put("p95", l.percentile(0.95)).put("p99", l.percentile(0.99));
        }
        Latencies v = Latencies.ofNanos("write to visible", visible.stream().mapToLong(Long::longValue).toArray());
        run.putObject("write_to_visible").put("samples", v.sortedMillis().length).put("p50", v.percentile(0.5))
                .put("p99", v.percentile(0.99));
        return run;
    }

    private static void print(PrintWriter out, JsonNode run) {
        if (run.has("metering_throughput_ratio")) {
            out.printf(Locale.ROOT, "%n%d client(s): metering on %.1f requests/s, off %.1f: ratio %.3f%n",
                    run.get("clients").asInt(), run.get("on_requests_per_second").asDouble(),
                    run.get("off_requests_per_second").asDouble(), run.get("metering_throughput_ratio").asDouble());
            return;
        }
        if (run.has("metering")) {
            out.printf("%nquotas and metering %s:", run.get("metering").asText());
        }
        out.printf(Locale.ROOT, "%n%d client(s): %.1f requests/s, %d errors; write-to-visible p50 %.0f ms, p99 %.0f ms (%d probes)%n",
                run.get("clients").asInt(), run.get("requests_per_second").asDouble(), run.get("errors").asLong(),
                run.at("/write_to_visible/p50").asDouble(), run.at("/write_to_visible/p99").asDouble(),
                run.at("/write_to_visible/samples").asInt());
        Map<String, JsonNode> sorted = new TreeMap<>();
        run.get("endpoints").properties().forEach(e -> sorted.put(e.getKey(), e.getValue()));
        sorted.forEach((route, e) -> out.printf(Locale.ROOT, "  %-18s %6d requests  p50 %7.1f ms  p95 %7.1f ms  p99 %7.1f ms%n",
                route, e.get("requests").asInt(), e.get("p50").asDouble(), e.get("p95").asDouble(), e.get("p99").asDouble()));
        out.flush();
    }

    /** A client of the service's MCP endpoint, as an agent's MCP client connects: initialized once, then reused. */
    private static McpSyncClient mcpClient(Target product, String tenant) {
        McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport.builder(product.url()).endpoint("/mcp")
                .requestBuilder(HttpRequest.newBuilder().header("Authorization", "Bearer " + product.keys().get(tenant)))
                .build()).requestTimeout(Duration.ofSeconds(60)).build();
        client.initialize();
        return client;
    }

    /** The MCP {@code recall} tool with the same arguments as the HTTP context request. */
    private static boolean recall(McpSyncClient mcp, ObjectNode arguments) {
        McpSchema.CallToolResult result = mcp.callTool(new McpSchema.CallToolRequest("recall",
                JSON.convertValue(arguments, new TypeReference<Map<String, Object>>() { })));
        return !Boolean.TRUE.equals(result.isError());
    }

    private int send(Target product, String tenant, String path, ObjectNode body) throws Exception {
        return http.send(request(product, tenant, path).POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private ObjectNode post(Target product, String tenant, String path, JsonNode body) throws Exception {
        HttpResponse<String> response = http.send(request(product, tenant, path)
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 202) {
            throw new IllegalStateException("POST " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return (ObjectNode) JSON.readTree(response.body());
    }

    private JsonNode get(Target product, String tenant, String path) throws Exception {
        return JSON.readTree(http.send(request(product, tenant, path).GET().build(), HttpResponse.BodyHandlers.ofString())
                .body());
    }

    private int status(Target product, String tenant, String path) throws Exception {
        return http.send(request(product, tenant, path).GET().build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static HttpRequest.Builder request(Target product, String tenant, String path) {
        return HttpRequest.newBuilder(URI.create(product.url() + path)).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + product.keys().get(tenant));
    }
}
