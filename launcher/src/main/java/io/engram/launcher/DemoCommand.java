package io.engram.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.client.KafkaClients;
import io.engram.client.TopicReader;
import io.engram.client.Topics;
import io.engram.jobs.EngramSetup;
import io.engram.jobs.PipelineConfig;
import io.engram.model.retrieval.AgentScope;
import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.retrieval.ContextService;
import io.engram.retrieval.Retrieval;
import io.engram.service.ApiKeys;
import io.engram.service.MemoryService;
import io.engram.service.ServiceConfig;
import io.engram.stack.EmbeddedStack;
import io.engram.store.MemoryStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ./engram demo}: the whole product in one process on its embedded default. Starts Kafka, PostgreSQL and
 * OpenSearch, replays the sample data that ships with the launcher (two tenants: agent documents, two
 * conversations each, gateway memories, three malformed records), runs the pipeline on a local Flink
 * MiniCluster until the input is consumed, and prints what happened.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Runs the pipeline on the embedded stack over the bundled sample data and prints what happened.")
final class DemoCommand implements Callable<Integer> {

    static final List<String> TENANTS = List.of("northwind", "harbor");
    private static final Map<String, String> QUERIES = Map.of(
            "northwind", "vegetarian food and a hotel with a lift",
            "harbor", "how do we run the invoices table migration safely?");
    /** Each tenant's agent: a travel planner and a coder. */
    private static final Map<String, String> AGENTS = Map.of("northwind", "planner", "harbor", "coder");
    /**
     * Each tenant's documents, by agent ({@link AgentScope#SHARED} for the tenant's shared ones) and path: the planner's
     * and Northwind's policies were written for the demo, the coder's is graphiti's real AGENTS.md.
     */
    private static final Map<String, List<DemoDocument>> DOCUMENTS = Map.of(
            "northwind", List.of(new DemoDocument("planner", "AGENTS.md", "northwind-planner__AGENTS.md"),
                    new DemoDocument(AgentScope.SHARED, "POLICY.md", "northwind-shared__POLICY.md")),
            "harbor", List.of(new DemoDocument("coder", "AGENTS.md", "getzep+graphiti__AGENTS.md")));

    /** An agent document the demo writes: its agent, its path, and the resource holding it. */
    private record DemoDocument(String agentId, String path, String resource) {
    }
    private static final ObjectMapper JSON = new ObjectMapper();

    @Spec
    CommandSpec spec;

    @Option(names = "--serve", description = "After the summary, keep the memory service and its web console up on"
            + " the demo's data until Ctrl-C.")
    boolean serve;

    @Option(names = "--port", defaultValue = "8080", paramLabel = "PORT",
            description = "The API's and console's port on 127.0.0.1 with --serve (default: ${DEFAULT-VALUE}).")
    int port;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        long started = System.nanoTime();
        out.println("[demo] starting Kafka, PostgreSQL and OpenSearch ...");
        out.flush();
        // with --serve, the JVM waits at exit until the servers below are stopped (PostgreSQL is a child process)
        try (UntilStopped untilStopped = serve ? new UntilStopped("engram-demo") : null;
             EmbeddedStack stack = EmbeddedStack.start(EmbeddedStack.Config.all(Optional.empty()), (service, address) -> {
                    out.println("[demo]   " + service.name().toLowerCase(Locale.ROOT) + " ready at " + address);
                    out.flush();
                })) {
            String kafka = stack.kafka().orElseThrow().bootstrapServers();
            String postgres = stack.postgres().orElseThrow().jdbcUrl();
            Properties p = LocalPipeline.embedded(stack, true);
            PipelineConfig config = PipelineConfig.fromProperties(p);
            EngramSetup.prepare(config, step -> { }); // topics, index and migrations, as ./engram run does
            Map<String, String> keys = ApiKeys.generate(serve
                    ? Stream.concat(TENANTS.stream(), Stream.of(ApiKeys.OPERATOR)).toList() : TENANTS);
            try (MemoryService api = MemoryService.start(ServiceConfig.from(p, Map.of()).withListen("127.0.0.1", 0),
                    ApiKeys.of(keys))) {
                int written = writeSamples("http://127.0.0.1:" + api.port(), keys);
                int malformed = produceMalformed(kafka);
                out.println("[demo] wrote " + written + " records through the memory service (POST /v1/documents,"
                        + " /v1/turns, /v1/memories) and " + malformed + " malformed ones straight to Kafka");
            }
            try (Retrieval retrieval = Retrieval.open(config.openSearch(), config.index())) {
                MemoryStore store = retrieval.store();
                out.println("[demo] running the pipeline on a local Flink MiniCluster (first run loads the model) ...");
                out.flush();
                ScheduledExecutorService progress = Executors.newSingleThreadScheduledExecutor();
                progress.scheduleAtFixedRate(() -> report(out, store), 5, 5, TimeUnit.SECONDS);
                try {
                    LocalPipeline.run(p, config, "engram-demo");
                } finally {
                    progress.shutdownNow();
                }
                store.refresh();
                summary(out, retrieval, postgres, kafka);
            }
            out.println();
            if (serve) {
                serveUntilStopped(out, p, keys, untilStopped);
            } else {
                out.println("[demo] to look at it in the web console: ./engram demo --serve; to keep the product"
                        + " running and write to it yourself: ./engram up");
            }
        }
        out.printf(Locale.ROOT, "[demo] done in %.1f s%n", (System.nanoTime() - started) / 1e9);
        out.flush();
        return 0;
    }

    /** The memory service over the demo's data, with its console, until the JVM is asked to stop. */
    private void serveUntilStopped(PrintWriter out, Properties p, Map<String, String> keys, UntilStopped untilStopped)
            throws Exception {
        try (MemoryService api = MemoryService.start(ServiceConfig.from(p, Map.of()).withListen("127.0.0.1", port),
                ApiKeys.of(keys))) {
            out.println("[demo] serving the demo's data until Ctrl-C");
            out.println("api: http://127.0.0.1:" + api.port());
            out.println("console: http://127.0.0.1:" + api.port() + "/console/ (type a key below)");
            UpCommand.printKeys(out, keys);
            out.flush();
            untilStopped.await();
        }
    }

    private static void report(PrintWriter out, MemoryStore store) {
        try {
            long total = 0;
            for (String tenant : TENANTS) {
                total += store.count(tenant, Set.of());
            }
            out.println("[demo]   ... " + total + " records indexed so far");
        } catch (RuntimeException e) { // a progress line is not worth failing the demo for, but say why it is missing
            out.println("[demo]   ... progress unavailable: " + e);
        }
        out.flush();
    }

    /** The sample documents, turns and memories, each tenant's through the API with its own key. */
    private static int writeSamples(String api, Map<String, String> keys) throws IOException, InterruptedException {
        Map<String, Map<String, ArrayNode>> batches = new LinkedHashMap<>(); // tenant -> endpoint -> records
        for (String tenant : TENANTS) {
            for (DemoDocument document : DOCUMENTS.get(tenant)) {
                batch(batches, tenant, "/v1/documents").addObject().put("agent_id", document.agentId())
                        .put("path", document.path()).put("doc_class", "core").put("version", 1)
                        .put("content", resource("documents/" + document.resource()))
                        .put("ts", "2026-11-20T08:00:00Z");
            }
        }
        for (String[] file : new String[][] {{"conversations.jsonl", "/v1/turns"}, {"memories.jsonl", "/v1/memories"}}) {
            for (String line : resource(file[0]).split("\n")) {
                if (!line.isBlank()) {
                    ObjectNode record = (ObjectNode) JSON.readTree(line);
                    batch(batches, record.get("tenant_id").asText(), file[1]).add(record);
                }
            }
        }
        HttpClient http = HttpClient.newHttpClient();
        int written = 0;
        for (Map.Entry<String, Map<String, ArrayNode>> tenant : batches.entrySet()) {
            for (Map.Entry<String, ArrayNode> endpoint : tenant.getValue().entrySet()) {
                ObjectNode body = JSON.createObjectNode();
                body.set("records", endpoint.getValue());
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(api + endpoint.getKey()))
                        .header("Authorization", "Bearer " + keys.get(tenant.getKey()))
                        .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(),
                        HttpResponse.BodyHandlers.ofString());
                JsonNode answer = JSON.readTree(response.body());
                if (response.statusCode() != 202 || !answer.path("rejected").isEmpty()) {
                    throw new IllegalStateException("POST " + endpoint.getKey() + " answered " + response.statusCode()
                            + ": " + response.body());
                }
                written += answer.get("accepted").size();
            }
        }
        return written;
    }

    private static ArrayNode batch(Map<String, Map<String, ArrayNode>> batches, String tenant, String endpoint) {
        return batches.computeIfAbsent(tenant, t -> new LinkedHashMap<>())
                .computeIfAbsent(endpoint, e -> JSON.createArrayNode());
    }

    /** Three records a broken gateway might send, past the API: the pipeline rejects them with a reason each. */
    private static int produceMalformed(String kafka) {
        int n = 0;
        Properties raw = new Properties();
        raw.put("bootstrap.servers", kafka);
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(raw, new StringSerializer(), new ByteArraySerializer())) {
            for (String line : resource("malformed.tsv").split("\n")) {
                String[] topicAndValue = line.split("\t", 2);
                producer.send(new ProducerRecord<>(topicAndValue[0], "demo", topicAndValue[1].getBytes(StandardCharsets.UTF_8)));
                n++;
            }
        }
        return n;
    }

    private static void summary(PrintWriter out, Retrieval retrieval, String postgres, String kafka) throws Exception {
        MemoryStore store = retrieval.store();
        try (Connection db = DriverManager.getConnection(postgres, "postgres", "")) {
            for (String tenant : TENANTS) {
                out.println();
                out.println("== tenant " + tenant);
                StringBuilder types = new StringBuilder();
                for (RecordType type : RecordType.values()) {
                    long count = store.count(tenant, Set.of(type));
                    if (count > 0) {
                        types.append(types.isEmpty() ? "" : ", ").append(type.label()).append(' ').append(count);
                    }
                }
                out.println("records indexed: " + types);
                List<MemoryRecord> summaries = store.find(tenant, Map.of(), Set.of(RecordType.SUMMARY), 1000, null, true);
                out.printf(Locale.ROOT, "summaries: %d, mean confidence %.3f%n", summaries.size(),
                        summaries.stream().mapToDouble(s -> s.confidence() == null ? 0 : s.confidence()).average().orElse(0));
                String query = QUERIES.get(tenant);
                AssembledContext c = retrieval.context().assemble(new ContextService.Request(tenant, null, null, query, 1500)
                        .forAgent(AGENTS.get(tenant)), Instant.parse("2026-11-25T12:00:00Z"));
                out.printf(Locale.ROOT, "context for \"%s\", agent %s (%d of %d tokens%s):%n", query, c.agentId(),
                        c.tokensUsed(), c.budget(), c.degraded() ? ", degraded" : "");
                for (AssembledContext.Included i : c.included()) {
                    String text = i.item().text().replace('\n', ' ');
                    out.printf(Locale.ROOT, "  [%s] %s%n", i.section().name().toLowerCase(Locale.ROOT),
                            text.length() > 110 ? text.substring(0, 107) + "..." : text);
                }
                out.printf(Locale.ROOT, "  (%d candidates left out)%n", c.excluded().size());
                out.println("cycle metrics:");
                try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery(
                        "SELECT cycle_id, close_reason, store_total, mean_recall, distinct_content_ratio,"
                                + " mean_bigram_diversity, accepted_actions, alerts_json FROM cycle_metrics WHERE tenant_id = '"
                                + tenant + "' ORDER BY ts")) {
                    out.println("  cycle                     close      store  recall  distinct  bigrams  writes  alerts");
                    while (rs.next()) {
                        out.printf(Locale.ROOT, "  %-25s %-10s %5d  %6.3f  %8.3f  %7.3f  %6d  %s%n", rs.getString(1),
                                rs.getString(2), rs.getLong(3), rs.getDouble(4), rs.getDouble(5), rs.getDouble(6),
                                rs.getLong(7), rs.getString(8));
                    }
                }
            }
        }
        long rejects = TopicReader.readAll(KafkaClients.at(kafka), Topics.REJECTS).size();
        out.println();
        out.println("rejects in " + Topics.REJECTS + ": " + rejects);
    }

    private static String resource(String name) {
        try (InputStream in = DemoCommand.class.getResourceAsStream("/engram/demo/" + name)) {
            if (in == null) {
                throw new IllegalStateException("demo resource " + name + " is missing");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
