package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.engram.jobs.PipelineConfig;
import io.engram.model.embed.EmbeddingModel;
import io.engram.service.ApiKeys;
import io.engram.service.MemoryService;
import io.engram.service.ServiceConfig;
import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thousand tenants, on a real PostgreSQL: through the real service an operator key pages
 * through every tenant with cycle rows exactly once, in order, each page within its limit (a page is one query,
 * a primary-key probe per tenant listed: {@code ServiceDatabase}); {@code ./engram status} lists
 * the open alerts of the first twenty and counts the others.
 */
@ExtendWith(EmbeddedServicesExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TenantDirectoryTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PREFIX = "dir-";
    private static final int TENANTS = 1_000;
    private static final int CYCLES_EACH = 5;
    private static final Instant CYCLE_TIME = Instant.parse("2026-11-20T10:00:00Z");
    private static final String OPERATOR_KEY = "directory-operator-key-0123456789abcdef";

    private final HttpClient http = HttpClient.newHttpClient();
    private MemoryService service;

    @BeforeAll
    void start(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch, EmbeddedPostgreSql postgres) throws Exception {
        try (Connection c = postgres.connect()) {
            try (Statement s = c.createStatement()) {
                s.executeUpdate("DELETE FROM cycle_metrics WHERE tenant_id LIKE '" + PREFIX + "%'");
                s.executeUpdate("DELETE FROM collapse_alerts WHERE tenant_id LIKE '" + PREFIX + "%'");
            }
            insertCycles(c);
            insertAlerts(c);
        }
        String index = "engram-memories-directory";
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearch.httpUrl(), index, RetryPolicy.DEFAULT)) {
            store.ensureIndex(PipelineConfig.defaults().embeddingModel().id(), EmbeddingModel.DIMENSION);
        }
        Properties settings = new Properties();
        settings.setProperty("kafka.bootstrap", kafka.bootstrapServers());
        settings.setProperty("opensearch.url", openSearch.httpUrl());
        settings.setProperty("opensearch.index", index);
        settings.setProperty("postgres.url", postgres.jdbcUrl());
        settings.setProperty("postgres.user", EmbeddedPostgreSql.USER);
        ServiceConfig config = ServiceConfig.from(settings, Map.of()).withListen("127.0.0.1", 0)
                .withRateLimit(10_000, 10_000);
        service = MemoryService.start(config, ApiKeys.of(ApiKeys.keyFileLine(OPERATOR_KEY, ApiKeys.OPERATOR)));
    }

    /** A thousand tenants of five small cycle rows each, in one batch. */
    private static void insertCycles(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO cycle_metrics (tenant_id, cycle_id, ts, close_reason, canary_set_id, canary_count,"
                        + " mean_recall, mean_ndcg, mean_mrr, canary_ranks_json, store_total, store_by_type_json,"
                        + " distinct_content_ratio, mean_bigram_diversity, over_generation_count, accepted_actions)"
                        + " VALUES (?, ?, ?, 'cycle_id', 'cs', 1, 1, 1, 1, '[]', 3, '{\"memory\":3}', 1, 1, 0, 3)")) {
            for (int t = 0; t < TENANTS; t++) {
                for (int cycle = 0; cycle < CYCLES_EACH; cycle++) {
                    ps.setString(1, tenant(t));
                    ps.setString(2, "c" + cycle);
                    ps.setTimestamp(3, Timestamp.from(CYCLE_TIME.plusSeconds(cycle)));
                    ps.addBatch();
                }
            }
            ps.executeBatch();
        }
    }

    /** Every tenant: churn on its first cycle (cleared since) and collapse-recall on its newest (open). */
    private static void insertAlerts(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO collapse_alerts (tenant_id, cycle_id, kind, ts,"
                + " canary_set_id, detail) VALUES (?, ?, ?, ?, 'cs', '')")) {
            for (int t = 0; t < TENANTS; t++) {
                for (int cycle : new int[] {0, CYCLES_EACH - 1}) {
                    ps.setString(1, tenant(t));
                    ps.setString(2, "c" + cycle);
                    ps.setString(3, cycle == 0 ? "churn" : "collapse-recall");
                    ps.setTimestamp(4, Timestamp.from(CYCLE_TIME.plusSeconds(cycle)));
                    ps.addBatch();
                }
            }
            ps.executeBatch();
        }
    }

    private static String tenant(int t) {
        return String.format("%s%04d", PREFIX, t);
    }

    @AfterAll
    void stop(EmbeddedPostgreSql postgres) throws SQLException {
        if (service != null) {
            service.close();
        }
        try (Connection c = postgres.connect(); Statement s = c.createStatement()) { // other tests list tenants too
            s.executeUpdate("DELETE FROM cycle_metrics WHERE tenant_id LIKE '" + PREFIX + "%'");
            s.executeUpdate("DELETE FROM collapse_alerts WHERE tenant_id LIKE '" + PREFIX + "%'");
        }
    }

    @Test
    void statusShowsTheOpenAlertsOfTwentyTenantsAndCountsTheRest(EmbeddedPostgreSql postgres, @TempDir Path home)
            throws Exception {
        Path settings = home.resolve("pipeline.properties");
        Files.writeString(settings, String.join("\n", "kafka.bootstrap=127.0.0.1:" + closedPort(),
                "flink.rest.port=" + closedPort(), "postgres.url=" + postgres.jdbcUrl(),
                "postgres.user=" + EmbeddedPostgreSql.USER));

        CliRun status = CliRun.of("status", "--config", settings.toString());

        List<String> alerts = status.out().lines().filter(l -> l.startsWith("alerts:")).toList();
        assertThat(alerts).hasSize(StatusCommand.ALERT_TENANTS_SHOWN + 1);
        assertThat(alerts.stream().filter(l -> l.startsWith("alerts:     " + PREFIX)).toList())
                .as("the first twenty in order, each with its newest cycle's alert only")
                .containsExactlyElementsOf(java.util.stream.IntStream.range(0, StatusCommand.ALERT_TENANTS_SHOWN)
                        .mapToObj(t -> "alerts:     " + tenant(t) + ": collapse-recall (c" + (CYCLES_EACH - 1) + ")")
                        .toList());
        Matcher more = Pattern.compile("alerts:     and (\\d+) more tenants .*").matcher(alerts.get(alerts.size() - 1));
        assertThat(more.matches()).as(alerts.get(alerts.size() - 1)).isTrue();
        assertThat(Integer.parseInt(more.group(1))).as("at least our other 980 (other tests' tenants may alert too)")
                .isGreaterThanOrEqualTo(TENANTS - StatusCommand.ALERT_TENANTS_SHOWN);
    }

    private static int closedPort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private JsonNode page(String after, int limit) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port()
                        + "/v1/tenants?limit=" + limit + "&after=" + URLEncoder.encode(after, StandardCharsets.UTF_8)))
                .header("Authorization", "Bearer " + OPERATOR_KEY).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    @Test
    void anOperatorPagesThroughAThousandTenantsEachOnceInOrder() throws Exception {
        List<String> listed = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        String after = PREFIX; // below every dir- tenant; other tests' tenants of this database sort elsewhere
        while (after != null && after.startsWith(PREFIX)) {
            JsonNode page = page(after, 100);
            page.get("tenants").forEach(t -> listed.add(t.asText()));
            sizes.add(page.get("tenants").size());
            after = page.get("next_after").isNull() ? null : page.get("next_after").asText();
        }
        List<String> ours = listed.stream().filter(t -> t.startsWith(PREFIX)).toList();
        List<String> expected = new ArrayList<>();
        for (int t = 0; t < TENANTS; t++) {
            expected.add(tenant(t));
        }
        assertThat(ours).as("every tenant once, in order").isEqualTo(expected);
        assertThat(sizes).allMatch(n -> n <= 100);
        assertThat(sizes.subList(0, 10)).as("ten full pages").containsOnly(100);

        JsonNode last = page(tenant(TENANTS - 3), 2);
        assertThat(last.get("tenants")).extracting(JsonNode::asText).containsExactly(tenant(TENANTS - 2), tenant(TENANTS - 1));
        assertThat(page(PREFIX, 1000).get("tenants")).as("the console's one page holds all thousand").hasSize(TENANTS);
    }
}
