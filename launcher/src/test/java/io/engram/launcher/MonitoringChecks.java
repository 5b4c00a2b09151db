package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.engram.client.Topics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What an operator watches, against the live embedded product ({@link LiveProductViewsTest}): {@code ./engram
 * status}, and the Grafana dashboard's queries against the names the job's Prometheus reporter and the
 * service's {@code /metrics} export.
 */
abstract class MonitoringChecks {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path DASHBOARD = Path.of(System.getProperty("engram.root"), "deploy", "grafana", "engram.json");
    /** A metric name in a PromQL expression: Engram's and Flink's all start so; label names and functions do not. */
    private static final Pattern METRIC = Pattern.compile("\\b(?:flink|engram)_[A-Za-z0-9_]+");
    private final HttpClient http = HttpClient.newHttpClient();

    /** What {@code ./engram status} shows, without a flag: it finds the product through the record {@code up} makes. */
    @Test
    void statusFindsTheRunningUpAndShowsItsPipeline() throws Exception {
        try (AutoCloseable recorded = RunRegistry.record(LiveProductViewsTest.live().product)) {
            statusShowsTheLivePipeline();
        }
    }

    private void statusShowsTheLivePipeline() throws Exception {
        CliRun[] last = new CliRun[1];
        Polling.await("status shows every input read and checkpointed, and the open alerts", Duration.ofSeconds(180), () -> {
            last[0] = CliRun.of("status");
            return last[0].out().contains(Topics.DOCS + " 0,") && last[0].out().contains(Topics.MEMORIES + " 0,")
                    && last[0].out().contains(Topics.FORGETS + " 0") // the console's test may have sent a forget
                    && last[0].out().contains(Topics.TURNS + " 0 ")
                    && last[0].out().contains("sim-churn: churn") && last[0].out().contains("sim-collapse: collapse-")
                    && last[0].out().contains("freshness:  p50");
        }, () -> "\n" + last[0].out() + last[0].err());
        String out = last[0].out();
        assertThat(last[0].exit()).as(out).isZero();
        assertThat(line(out, "up:")).isEqualTo("up:         process " + ProcessHandle.current().pid() + ", api "
                + LiveProductViewsTest.live().product.apiUrl() + ", settings "
                + LiveProductViewsTest.live().product.settingsFile().toAbsolutePath());
        assertThat(line(out, "job:")).matches("job: +engram-live [0-9a-f]{32} RUNNING, up \\d+ (s|min)");
        assertThat(line(out, "checkpoint:")).matches("checkpoint: #\\d+ completed \\d+ s ago, \\d+ (B|KiB|MiB), took \\d+ ms; \\d+ failed so far");
        // the fixture sends no forget (the console's test may, before or after): the group may have committed nothing there
        assertThat(line(out, "lag:")).matches(Pattern.quote("lag:        " + Topics.DOCS + " 0, " + Topics.FORGETS + " 0")
                + "( \\(nothing committed\\))?" + Pattern.quote(", " + Topics.MEMORIES + " 0, " + Topics.TURNS
                + " 0 (group engram-pipeline)"));
        assertThat(line(out, "rates:")).matches("rates: +in \\d+\\.\\d records/s from Kafka, out \\d+\\.\\d store changes/s to OpenSearch");
        assertThat(line(out, "rejects:")).isEqualTo("rejects:    last 5 min: invalid_json 1, schema_violation 1");
        Matcher freshness = Pattern.compile("freshness:  p50 (\\d+) ms, p99 (\\d+) ms .*").matcher(line(out, "freshness:"));
        assertThat(freshness.matches()).as(out).isTrue();
        // the simulations' event times are weeks old: their age is what freshness measures
        assertThat(Long.parseLong(freshness.group(2))).isGreaterThanOrEqualTo(Long.parseLong(freshness.group(1)))
                .isGreaterThan(Duration.ofDays(1).toMillis());
        assertThat(out.lines().filter(l -> l.startsWith("alerts:")).toList()).isEqualTo(openAlertsInPostgres());
    }

    /** Each tenant's alerts on its newest cycle, as status prints them, read here from the rows themselves. */
    private static List<String> openAlertsInPostgres() throws Exception {
        TreeMap<String, List<String>> open = new TreeMap<>();
        try (Connection c = DriverManager.getConnection(LiveProductViewsTest.live().product.pipeline().getProperty("postgres.url"), "postgres", "");
             Statement s = c.createStatement();
             ResultSet tenants = s.executeQuery("SELECT DISTINCT tenant_id FROM cycle_metrics ORDER BY tenant_id")) {
            List<String> all = new ArrayList<>();
            while (tenants.next()) {
                all.add(tenants.getString(1));
            }
            for (String tenant : all) {
                try (Statement q = c.createStatement(); ResultSet rs = q.executeQuery("SELECT kind, cycle_id FROM collapse_alerts"
                        + " WHERE tenant_id = '" + tenant + "' AND cycle_id = (SELECT cycle_id FROM cycle_metrics WHERE tenant_id = '"
                        + tenant + "' ORDER BY ts DESC LIMIT 1) ORDER BY kind")) {
                    while (rs.next()) {
                        open.computeIfAbsent(tenant, t -> new ArrayList<>()).add(rs.getString(1) + " (" + rs.getString(2) + ")");
                    }
                }
            }
        }
        List<String> lines = new ArrayList<>();
        open.forEach((tenant, kinds) -> lines.add("alerts:     " + tenant + ": " + String.join(", ", kinds)));
        return lines;
    }

    private static String line(String out, String prefix) {
        return out.lines().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow(() -> new AssertionError(prefix + " in\n" + out));
    }

    @Test
    void everyDashboardQueryUsesNamesTheJobAndTheServiceExport() throws Exception {
        HttpResponse<String> unauthorised = http.send(HttpRequest.newBuilder(URI.create(LiveProductViewsTest.live().product.apiUrl() + "/v1/memories"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(unauthorised.statusCode()).isEqualTo(401); // so the service's auth-failure series exist
        JsonNode dashboard = JSON.readTree(Files.readString(DASHBOARD));
        Set<String> used = new TreeSet<>();
        List<String> expressions = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            assertThat(panel.path("targets").size()).as(panel.path("title").asText()).isPositive();
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asText();
                expressions.add(expr);
                Matcher m = METRIC.matcher(expr);
                assertThat(m.find()).as(expr).isTrue();
                do {
                    used.add(m.group());
                } while (m.find());
            }
        }
        Set<String> exported = new TreeSet<>();
        Polling.await("every name the dashboard uses exported", Duration.ofSeconds(120), () -> {
            exported.clear();
            exported.addAll(names(LiveProductViewsTest.live().product.jobMetricsUrl()));
            exported.addAll(names(LiveProductViewsTest.live().product.apiUrl() + "/metrics"));
            return exported.containsAll(used);
        }, () -> "\nmissing: " + used.stream().filter(n -> !exported.contains(n)).toList()
                + "\nexported: " + exported.stream().filter(n -> n.contains("engram") || n.contains("Checkpoint")
                        || n.contains("pending") || n.contains("lag") || n.contains("numRestarts") || n.contains("uptime")
                        || n.contains("Time")).toList());
        // and every metric of Engram's own is on the dashboard
        for (String name : exported) {
            if (name.contains("engram_")) {
                String family = name.replaceAll("_(bucket|sum|count)$", "");
                assertThat(used).as(name + " on a panel").anyMatch(u -> u.equals(name) || u.startsWith(family));
            }
        }
    }

    /** The metric names of a Prometheus text exposition. */
    private Set<String> names(String url) throws Exception {
        String body = http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()).body();
        Set<String> names = new TreeSet<>();
        body.lines().filter(l -> !l.isBlank() && !l.startsWith("#"))
                .forEach(l -> names.add(l.split("[{ ]", 2)[0]));
        return names;
    }
}
