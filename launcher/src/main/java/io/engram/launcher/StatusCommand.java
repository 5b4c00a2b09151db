package io.engram.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.engram.client.KafkaClients;
import io.engram.client.Secrets;
import io.engram.client.TopicReader;
import io.engram.client.Topics;
import io.engram.cluster.FlinkRest;
import io.engram.jobs.EngramMetrics;
import io.engram.jobs.EngramPipeline;
import io.engram.jobs.PipelineConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "status", mixinStandardHelpOptions = true,
        description = {"Shows the live pipeline at a glance: job, checkpoint, lag, rates, rejects, freshness, open alerts.",
                "From Flink's REST API, Kafka and PostgreSQL: the job and its uptime, the last checkpoint, consumer lag",
                "per input topic, rates in and out, rejects per reason lately, freshness and the open collapse alerts",
                "per tenant. Without --config or --rest, of every ./engram up running here. Exits 1 when a job is not",
                "running, or nothing runs here."})
final class StatusCommand implements Callable<Integer> {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> ENDED = Set.of("FINISHED", "FAILED", "CANCELED");
    /** What status answers when nothing runs here and it was not told where to look. */
    static final String NOTHING_RUNNING = "nothing is running here: start `./engram up`, or give --config FILE / --rest URL";
    /** How long status waits for a server to take a connection or answer a question. */
    private static final Duration PATIENCE = Duration.ofSeconds(5);
    /** The tenants whose open alerts a glance shows, so a thousand alerting tenants stay one screen. */
    static final int ALERT_TENANTS_SHOWN = 20;
    /** How long status waits for the JobManager to fetch the tasks' metrics (Flink's fetch interval is 10 s). */
    private static final Duration METRICS_FETCHED = Duration.ofSeconds(15);

    @Spec
    CommandSpec spec;

    @Option(names = "--config", converter = ExistingPath.class, paramLabel = "FILE",
            description = "the pipeline's settings (kafka.*, postgres.*; flink.rest.address and flink.rest.port name"
                    + " the JobManager); default: those of each ./engram up running here")
    Path config;

    @Option(names = "--rest", paramLabel = "URL",
            description = "the JobManager's REST API (default: from the settings, else http://127.0.0.1:8081 with"
                    + " --config)")
    String rest;

    @Option(names = "--job", paramLabel = "ID", description = "the job (default: the newest one not ended)")
    String job;

    @Option(names = "--rejects-window", defaultValue = "5", paramLabel = "MINUTES",
            description = "count the rejects of the last MINUTES (default ${DEFAULT-VALUE})")
    int rejectsMinutes;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (config != null || rest != null) {
            return show(out, config == null ? new Properties() : RunCommand.load(config)) ? 0 : 1;
        }
        List<String> removed = new ArrayList<>();
        List<RunRegistry.Up> ups = RunRegistry.running(removed);
        removed.forEach(out::println);
        if (ups.isEmpty()) {
            out.println(NOTHING_RUNNING);
            out.flush();
            return 1;
        }
        boolean allRunning = true;
        for (RunRegistry.Up up : ups) {
            out.println("up:         process " + up.pid() + ", api " + up.api() + ", settings " + up.settings());
            allRunning &= Files.isReadable(up.settings()) ? show(out, RunCommand.load(up.settings()))
                    : gone(out, up.settings());
        }
        return allRunning ? 0 : 1;
    }

    private static boolean gone(PrintWriter out, Path settings) {
        out.println("job:        its settings file " + settings + " is gone: give --config FILE / --rest URL");
        out.flush();
        return false;
    }

    /** Every part of the pipeline these settings name; whether its job runs. */
    private boolean show(PrintWriter out, Properties settings) throws InterruptedException {
        PipelineConfig pipeline = PipelineConfig.fromProperties(settings);
        FlinkRest flink = new FlinkRest(rest != null ? rest : "http://" + settings.getProperty("flink.rest.address",
                "127.0.0.1") + ":" + settings.getProperty("flink.rest.port", "8081"));
        boolean running = printJob(out, flink);
        Optional<String> kafkaDown = unreachable(pipeline.kafkaBootstrap());
        if (kafkaDown.isPresent()) {
            String why = "Kafka at " + pipeline.kafkaBootstrap() + " did not answer: " + kafkaDown.get();
            out.println("lag:        " + why);
            out.println("rejects:    " + why);
        } else {
            KafkaClients kafka = impatient(pipeline);
            printLag(out, kafka, pipeline.consumerGroup());
            printRejects(out, kafka);
        }
        printAlerts(out, pipeline);
        out.flush();
        return running;
    }

    /**
     * Why none of the bootstrap addresses takes a TCP connection within {@link #PATIENCE}, if none does: Kafka's
     * clients retry a refused connection until their own timeout and then report only that time ran out.
     */
    private static Optional<String> unreachable(String bootstrap) {
        String why = "no address in " + bootstrap;
        for (String address : bootstrap.split(",")) {
            int colon = address.strip().lastIndexOf(':');
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(address.strip().substring(0, colon),
                        Integer.parseInt(address.strip().substring(colon + 1))), (int) PATIENCE.toMillis());
                return Optional.empty();
            } catch (IOException | RuntimeException e) {
                why = FailureReason.of(e);
            }
        }
        return Optional.of(why);
    }

    /** The pipeline's Kafka clients, giving up on a question after {@link #PATIENCE} instead of a minute. */
    private static KafkaClients impatient(PipelineConfig pipeline) {
        Map<String, String> properties = new HashMap<>(pipeline.kafkaProperties());
        properties.put("request.timeout.ms", String.valueOf(PATIENCE.toMillis()));
        properties.put("default.api.timeout.ms", String.valueOf(2 * PATIENCE.toMillis()));
        return new KafkaClients(pipeline.kafkaBootstrap(), properties);
    }

    /** Job, checkpoint, rates and freshness from Flink; whether the job runs. */
    private boolean printJob(PrintWriter out, FlinkRest flink) throws InterruptedException {
        JsonNode chosen;
        try {
            chosen = chooseJob(flink);
        } catch (IOException e) {
            out.println("job:        Flink's REST API at " + flink.baseUrl() + " did not answer: " + FailureReason.of(e));
            return false;
        }
        if (chosen == null) {
            out.println("job:        none at " + flink.baseUrl());
            return false;
        }
        String id = chosen.path("jid").asText();
        String state = chosen.path("state").asText();
        try {
            out.println("job:        " + chosen.path("name").asText() + " " + id + " " + state + ", up "
                    + human(Duration.ofMillis(chosen.path("duration").asLong())));
            JsonNode checkpoints = flink.checkpoints(id);
            JsonNode last = checkpoints.path("latest").path("completed");
            if (last.isMissingNode() || last.isNull()) {
                out.println("checkpoint: none completed yet (" + checkpoints.path("counts").path("failed").asInt() + " failed)");
            } else {
                out.println("checkpoint: #" + last.path("id").asLong() + " completed "
                        + human(Duration.ofMillis(System.currentTimeMillis() - last.path("latest_ack_timestamp").asLong()))
                        + " ago, " + bytes(last.path("state_size").asLong()) + ", took "
                        + last.path("end_to_end_duration").asLong() + " ms; " + checkpoints.path("counts").path("failed").asInt()
                        + " failed so far");
            }
            JsonNode details = flink.job(id);
            String source = withMetrics(flink, id, vertex(details, "Source: " + EngramPipeline.SOURCE_NAME));
            String writer = withMetrics(flink, id, vertex(details, EngramPipeline.WRITER_NAME));
            String sourceId = metricId("Source: " + EngramPipeline.SOURCE_NAME);
            String writerId = metricId(EngramPipeline.WRITER_NAME);
            OptionalDouble in = metric(flink, id, source, sourceId + ".numRecordsOutPerSecond", "sum");
            OptionalDouble changes = metric(flink, id, writer, writerId + ".numRecordsInPerSecond", "sum");
            out.println("rates:      in " + rate(in) + " records/s from Kafka, out " + rate(changes)
                    + " store changes/s to OpenSearch");
            String engram = writerId + "." + EngramMetrics.GROUP + ".";
            OptionalDouble indexed = metric(flink, id, writer, engram + "op.index.opensearch_documents", "sum");
            OptionalDouble p50 = metric(flink, id, writer, engram + "freshness_millis_median", "max");
            OptionalDouble p99 = metric(flink, id, writer, engram + "freshness_millis_p99", "max");
            out.println("freshness:  " + (indexed.orElse(0) == 0 || p50.isEmpty() || p99.isEmpty() ? "nothing written yet"
                    : "p50 " + Math.round(p50.getAsDouble()) + " ms, p99 " + Math.round(p99.getAsDouble())
                    + " ms (event time to acknowledged write, newest 1,024 writes of the slowest subtask)"));
        } catch (IOException e) {
            out.println("job:        " + id + " " + state + ": its details did not load: " + FailureReason.of(e));
        }
        return state.equals("RUNNING");
    }

    private JsonNode chooseJob(FlinkRest flink) throws IOException, InterruptedException {
        List<JsonNode> jobs = flink.jobs();
        for (JsonNode j : jobs) {
            if (job != null ? j.path("jid").asText().equals(job) : !ENDED.contains(j.path("state").asText())) {
                return j;
            }
        }
        return job == null && !jobs.isEmpty() ? jobs.get(0) : null;
    }

    /** The vertex once the JobManager has its metrics (waited for once per vertex), or null. */
    private static String withMetrics(FlinkRest flink, String job, String vertex) throws IOException, InterruptedException {
        return vertex != null && flink.awaitVertexMetrics(job, vertex, METRICS_FETCHED) ? vertex : null;
    }

    private static OptionalDouble metric(FlinkRest flink, String job, String vertex, String metricId, String aggregation)
            throws IOException, InterruptedException {
        return vertex == null ? OptionalDouble.empty() : flink.vertexMetric(job, vertex, metricId, aggregation);
    }

    /** How Flink's REST API names an operator in metric ids. */
    private static String metricId(String operatorName) {
        return operatorName.replaceAll("[^A-Za-z0-9_]", "_");
    }

    private static String vertex(JsonNode job, String namePart) {
        for (JsonNode v : job.path("vertices")) {
            if (v.path("name").asText().contains(namePart)) {
                return v.path("id").asText();
            }
        }
        return null;
    }

    /** The input topics' records not yet committed by the job's consumer group (committed at each checkpoint). */
    private static void printLag(PrintWriter out, KafkaClients kafka, String group) throws InterruptedException {
        Map<TopicPartition, Long> committed;
        Map<TopicPartition, Long> end;
        try (Admin admin = Admin.create(kafka.config())) {
            committed = InputOffsets.committed(admin, group);
            end = InputOffsets.end(admin);
        } catch (ExecutionException | TimeoutException | KafkaException e) {
            out.println("lag:        Kafka at " + kafka.bootstrap() + " did not answer: " + FailureReason.of(e));
            return;
        }
        Map<String, Long> lag = new TreeMap<>();
        Map<String, Boolean> anyCommitted = new HashMap<>();
        end.forEach((tp, offset) -> {
            long at = committed.getOrDefault(tp, -1L);
            lag.merge(tp.topic(), offset - Math.max(0, at), Long::sum);
            anyCommitted.merge(tp.topic(), at >= 0, Boolean::logicalOr);
        });
        List<String> parts = new ArrayList<>();
        lag.forEach((topic, n) -> parts.add(topic + " " + n + (anyCommitted.get(topic) ? "" : " (nothing committed)")));
        out.println("lag:        " + String.join(", ", parts) + " (group " + group + ")");
    }

    private void printRejects(PrintWriter out, KafkaClients kafka) {
        Instant since = Instant.now().minus(Duration.ofMinutes(rejectsMinutes));
        Map<String, Integer> byReason = new TreeMap<>();
        try {
            TopicReader.readSince(kafka, Topics.REJECTS, since).forEach(r -> {
                try {
                    byReason.merge(JSON.readTree(r.value()).path("reason_code").asText(), 1, Integer::sum);
                } catch (IOException e) {
                    byReason.merge("(not a reject record)", 1, Integer::sum);
                }
            });
        } catch (KafkaException e) {
            out.println("rejects:    " + Topics.REJECTS + " did not read: " + FailureReason.of(e));
            return;
        }
        List<String> parts = new ArrayList<>();
        byReason.forEach((reason, n) -> parts.add(reason + " " + n));
        out.println("rejects:    last " + rejectsMinutes + " min: " + (parts.isEmpty() ? "none" : String.join(", ", parts)));
    }

    /**
     * Each tenant's alerts of its newest cycle (those at the tenant's greatest {@code ts}, all of them on a tie), by
     * tenant and kind. Probes, not an aggregate over every cycle row: each tenant is the least one above the last
     * (primary key), its newest cycle one backward step of {@code cycle_metrics_tenant_ts}, its alerts one probe of
     * {@code collapse_alerts_tenant_ts}; so the cost grows with the tenants, not with the cycles they have kept.
     */
    static final String OPEN_ALERTS = "WITH RECURSIVE tenants(tenant_id) AS ("
            + " SELECT min(tenant_id) FROM cycle_metrics"
            + " UNION ALL SELECT (SELECT min(c.tenant_id) FROM cycle_metrics c WHERE c.tenant_id > tenants.tenant_id)"
            + " FROM tenants WHERE tenants.tenant_id IS NOT NULL)"
            + " SELECT a.tenant_id, a.kind, a.cycle_id FROM tenants t JOIN LATERAL (SELECT * FROM collapse_alerts a"
            + " WHERE a.tenant_id = t.tenant_id"
            + " AND a.ts = (SELECT max(m.ts) FROM cycle_metrics m WHERE m.tenant_id = t.tenant_id)) a ON true"
            + " ORDER BY a.tenant_id, a.kind, a.cycle_id";

    /** The alerts fired on each tenant's latest closed cycle: those a later healthy cycle has not cleared. */
    private static void printAlerts(PrintWriter out, PipelineConfig pipeline) {
        Map<String, List<String>> open = new TreeMap<>();
        Properties login = new Properties();
        login.setProperty("user", pipeline.postgresUser());
        login.setProperty("password", Secrets.resolve(pipeline.postgresPassword()));
        login.setProperty("connectTimeout", String.valueOf(PATIENCE.toSeconds()));
        login.setProperty("socketTimeout", String.valueOf(2 * PATIENCE.toSeconds()));
        try (Connection c = DriverManager.getConnection(pipeline.postgresUrl(), login);
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(OPEN_ALERTS)) {
            while (rs.next()) {
                open.computeIfAbsent(rs.getString(1), t -> new ArrayList<>()).add(rs.getString(2) + " (" + rs.getString(3) + ")");
            }
        } catch (java.sql.SQLException e) {
            out.println("alerts:     PostgreSQL at " + pipeline.postgresUrl() + " did not answer: " + FailureReason.of(e));
            return;
        }
        if (open.isEmpty()) {
            out.println("alerts:     none open");
        }
        open.entrySet().stream().limit(ALERT_TENANTS_SHOWN).forEach(e -> out.println("alerts:     " + e.getKey() + ": "
                + String.join(", ", e.getValue())));
        if (open.size() > ALERT_TENANTS_SHOWN) {
            out.println("alerts:     and " + (open.size() - ALERT_TENANTS_SHOWN)
                    + " more tenants (each tenant's: GET /v1/health, the console's Health page)");
        }
    }


    private static String rate(OptionalDouble perSecond) {
        return perSecond.isEmpty() ? "?" : String.format(java.util.Locale.ROOT, "%.1f", perSecond.getAsDouble());
    }

    private static String human(Duration d) {
        long s = Math.max(0, d.toSeconds());
        return s < 120 ? s + " s" : s < 7200 ? s / 60 + " min" : s / 3600 + " h " + s % 3600 / 60 + " min";
    }

    private static String bytes(long n) {
        return n < 10_000 ? n + " B" : n < 10_000_000 ? n / 1024 + " KiB" : n / (1024 * 1024) + " MiB";
    }
}
