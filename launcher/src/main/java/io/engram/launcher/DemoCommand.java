package io.engram.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.client.EngramProducer;
import io.engram.client.Payload;
import io.engram.client.PayloadKind;
import io.engram.client.TopicReader;
import io.engram.client.Topics;
import io.engram.jobs.EngramSetup;
import io.engram.jobs.PipelineConfig;
import io.engram.jobs.retrieval.ContextService;
import io.engram.jobs.store.MemoryStore;
import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedStack;
import io.engram.stack.EmbeddedStack.Service;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.EnumSet;
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
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
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
    private static final Map<String, String> DOCUMENTS = Map.of(
            "northwind", "apache+flink-agents__AGENTS.md", "harbor", "getzep+graphiti__AGENTS.md");
    private static final ObjectMapper JSON = new ObjectMapper();

    @Spec
    CommandSpec spec;

    private final java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);

    @picocli.CommandLine.Option(names = "--serve", description = "afterwards, keep the stack and serve the HTTP API until Ctrl-C")
    boolean serve;

    @picocli.CommandLine.Option(names = "--port", defaultValue = "8080", description = "HTTP API port with --serve (default: ${DEFAULT-VALUE})")
    int port;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        long started = System.nanoTime();
        out.println("[demo] starting Kafka, PostgreSQL and OpenSearch ...");
        out.flush();
        try (EmbeddedStack stack = EmbeddedStack.start(new EmbeddedStack.Config(EnumSet.allOf(Service.class), 0, 0, 0,
                Optional.empty()), (service, address) -> {
                    out.println("[demo]   " + service.name().toLowerCase(Locale.ROOT) + " ready at " + address);
                    out.flush();
                })) {
            String kafka = stack.kafka().orElseThrow().bootstrapServers();
            String openSearch = stack.openSearch().orElseThrow().httpUrl();
            String postgres = stack.postgres().orElseThrow().jdbcUrl();
            Properties p = LocalPipeline.embedded(stack, true);
            PipelineConfig config = PipelineConfig.fromProperties(p);
            EngramSetup.prepare(config, step -> { }); // topics, index and migrations, as ./engram run does
            int produced = produceSamples(kafka);
            out.println("[demo] produced " + produced + " records to Kafka (3 of them malformed)");
            try (Retrieval retrieval = Retrieval.open(openSearch, config.index())) {
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
            if (serve) {
                serveApi(out, openSearch, config.index());
            }
        } finally {
            closed.countDown();
        }
        out.printf(Locale.ROOT, "[demo] done in %.1f s%n", (System.nanoTime() - started) / 1e9);
        out.flush();
        return 0;
    }

    /** The read API over what the demo indexed, with a fresh key per tenant, until Ctrl-C. */
    private void serveApi(PrintWriter out, String openSearch, String index) throws Exception {
        java.security.SecureRandom random = new java.security.SecureRandom();
        Map<String, String> keys = new java.util.LinkedHashMap<>();
        for (String tenant : TENANTS) {
            byte[] bytes = new byte[16];
            random.nextBytes(bytes);
            keys.put(java.util.HexFormat.of().formatHex(bytes), tenant);
        }
        try (Retrieval retrieval = Retrieval.open(openSearch, index)) {
            HttpApi api = new HttpApi(port, new ApiKeys(keys), retrieval, java.time.Clock.systemUTC());
            java.util.concurrent.CountDownLatch stopped = new java.util.concurrent.CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                stopped.countDown();
                try { // let the main thread stop the servers (PostgreSQL is a child process) before the JVM exits
                    closed.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "engram-demo-shutdown"));
            out.println();
            out.println("[demo] api: http://127.0.0.1:" + api.port() + " (Ctrl-C to stop)");
            keys.forEach((key, tenant) -> out.println("[demo]   key for " + tenant + ": " + key));
            String first = keys.keySet().iterator().next();
            out.println("[demo]   curl -s -H 'Authorization: Bearer " + first + "' -d '{\"query\":\"" + QUERIES.get("northwind")
                    + "\",\"budget_tokens\":800}' http://127.0.0.1:" + api.port() + "/v1/context");
            out.flush();
            stopped.await();
            api.close();
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

    private static int produceSamples(String kafka) throws IOException {
        int n = 0;
        try (EngramProducer producer = new EngramProducer(kafka)) {
            for (String tenant : TENANTS) {
                String agent = tenant.equals("harbor") ? "coder" : "planner";
                producer.send(Payload.doc(tenant, agent, "AGENTS.md", "core", 1,
                        resource("documents/" + DOCUMENTS.get(tenant)), Instant.parse("2026-11-20T08:00:00Z")));
                n++;
            }
            for (String line : resource("conversations.jsonl").split("\n")) {
                n += send(producer, PayloadKind.TURN, line);
            }
            for (String line : resource("memories.jsonl").split("\n")) {
                n += send(producer, PayloadKind.MEMORY, line);
            }
        }
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

    private static int send(EngramProducer producer, PayloadKind kind, String line) throws IOException {
        if (line.isBlank()) {
            return 0;
        }
        producer.send(Payload.of(kind, (ObjectNode) JSON.readTree(line)));
        return 1;
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
                AssembledContext c = retrieval.context().assemble(new ContextService.Request(tenant, null, null, query, 1500),
                        Instant.parse("2026-11-25T12:00:00Z"));
                out.printf(Locale.ROOT, "context for \"%s\" (%d of %d tokens%s):%n", query, c.tokensUsed(), c.budget(),
                        c.degraded() ? ", degraded" : "");
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
        long rejects = TopicReader.readAll(kafka, Topics.REJECTS).size();
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
