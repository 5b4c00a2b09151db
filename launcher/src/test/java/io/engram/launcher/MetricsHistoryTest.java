package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.EmbeddedServicesExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The metrics history in a real PostgreSQL: the Flink SQL examples of sql/flink/examples return the expected
 * rows, and the retention function purges exactly what is past retention.
 */
@ExtendWith(EmbeddedServicesExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MetricsHistoryTest {

    private static final Path EXAMPLES = Path.of("../sql/flink/examples");
    private static final Instant NOW = Instant.now();

    private EmbeddedPostgreSql postgres;
    private MetricsSql sql;

    @BeforeAll
    void rows(EmbeddedPostgreSql postgres) throws SQLException {
        this.postgres = postgres;
        try (Connection c = postgres.connect(); Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM cycle_metrics WHERE tenant_id LIKE 'sqlx-%' OR tenant_id = 'acme'");
            s.executeUpdate("DELETE FROM collapse_alerts WHERE tenant_id LIKE 'sqlx-%' OR tenant_id = 'acme'");
        }
        // acme: a steady trend; sqlx-drop: recall 0.9 → 0.6 inside 7 days; sqlx-steady: 0.9 → 0.8;
        // sqlx-old: the drop happened 20 days ago; sqlx-sets: the drop spans two canary sets (not comparable)
        cycle("acme", "c1", 3, "cs-a", 0.95);
        cycle("acme", "c2", 2, "cs-a", 0.9);
        cycle("acme", "c3", 1, "cs-a", 0.9);
        cycle("sqlx-drop", "c1", 5, "cs-d", 0.9);
        cycle("sqlx-drop", "c2", 3, "cs-d", 0.8);
        cycle("sqlx-drop", "c3", 1, "cs-d", 0.6);
        cycle("sqlx-steady", "c1", 4, "cs-s", 0.9);
        cycle("sqlx-steady", "c2", 1, "cs-s", 0.8);
        cycle("sqlx-old", "c1", 21, "cs-o", 0.9);
        cycle("sqlx-old", "c2", 20, "cs-o", 0.5);
        cycle("sqlx-sets", "c1", 3, "cs-1", 0.95);
        cycle("sqlx-sets", "c2", 1, "cs-2", 0.5);
        alert("sqlx-drop", "c3", "collapse-recall", 1);
        alert("sqlx-drop", "c2", "churn", 3);
        alert("sqlx-drop", "c3", "churn", 1);
        alert("sqlx-steady", "c2", "merge-floor", 1);
        sql = new MetricsSql(postgres.jdbcUrl(), EmbeddedPostgreSql.USER, "");
    }

    private void cycle(String tenant, String cycle, int daysAgo, String set, double recall) throws SQLException {
        try (Connection c = postgres.connect(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO cycle_metrics (tenant_id, cycle_id, ts, close_reason, canary_set_id, canary_count,"
                        + " mean_recall, mean_ndcg, mean_mrr, canary_ranks_json, store_total, store_by_type_json,"
                        + " distinct_content_ratio, mean_bigram_diversity, over_generation_count, accepted_actions)"
                        + " VALUES (?, ?, ?, 'cycle_id', ?, 40, ?, ?, ?, '[]', 100, '{\"memory\":100}', 0.9, 0.8, 0, 5)")) {
            ps.setString(1, tenant);
            ps.setString(2, cycle);
            ps.setTimestamp(3, Timestamp.from(NOW.minus(Duration.ofDays(daysAgo))));
            ps.setString(4, set);
            ps.setDouble(5, recall);
            ps.setDouble(6, recall);
            ps.setDouble(7, recall);
            ps.executeUpdate();
        }
    }

    private void alert(String tenant, String cycle, String kind, int daysAgo) throws SQLException {
        try (Connection c = postgres.connect(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO collapse_alerts VALUES (?, ?, ?, ?, 'cs', 'detail')")) {
            ps.setString(1, tenant);
            ps.setString(2, cycle);
            ps.setString(3, kind);
            ps.setTimestamp(4, Timestamp.from(NOW.minus(Duration.ofDays(daysAgo))));
            ps.executeUpdate();
        }
    }

    private List<Row> example(String file) throws Exception {
        List<String> statements = MetricsSql.statements(Files.readString(EXAMPLES.resolve(file)));
        assertThat(statements).hasSize(1);
        return sql.query(statements.get(0));
    }

    @Test
    void tenantTrendListsItsCyclesOldestFirst() throws Exception {
        List<Row> rows = example("tenant-trend.sql");
        assertThat(rows).extracting(r -> r.getField("cycle_id")).containsExactly("c1", "c2", "c3");
        assertThat(rows).extracting(r -> r.getField("recall")).containsExactly(0.95, 0.9, 0.9);
    }

    @Test
    void recallDropsFindOnlyTheTenantThatDroppedWithinSevenDaysInOneSet() throws Exception {
        List<Row> rows = example("recall-drops.sql").stream()
                .filter(r -> String.valueOf(r.getField("tenant_id")).startsWith("sqlx-")).toList();
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).getField("tenant_id")).isEqualTo("sqlx-drop");
        assertThat(rows.get(0).getField("drop_by")).isEqualTo(0.3);
    }

    @Test
    void alertCountsGroupByTenantAndKind() throws Exception {
        List<Row> rows = example("alert-counts.sql").stream()
                .filter(r -> String.valueOf(r.getField("tenant_id")).startsWith("sqlx-")).toList();
        assertThat(rows).extracting(r -> r.getField("tenant_id") + "/" + r.getField("kind") + "=" + r.getField("alerts"))
                .containsExactly("sqlx-drop/churn=2", "sqlx-drop/collapse-recall=1", "sqlx-steady/merge-floor=1");
    }

    @Test
    void usageByTenantSumsTheLastThirtyDays() throws Exception {
        try (Connection c = postgres.connect(); Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM usage_daily WHERE tenant_id LIKE 'sqlx-%'");
            s.executeUpdate("INSERT INTO usage_daily VALUES ('sqlx-u1', current_date, 3, 300, 1, 4, 2, 0, 17),"
                    + " ('sqlx-u1', current_date - 3, 2, 200, 2, 1, 0, 1, 5),"
                    + " ('sqlx-u1', current_date - 40, 9, 900, 9, 9, 9, 9, 9),"
                    + " ('sqlx-u2', current_date, 1, 50, 1, 0, 0, 0, 0)");
        }
        List<Row> rows = example("usage-by-tenant.sql").stream()
                .filter(r -> String.valueOf(r.getField("tenant_id")).startsWith("sqlx-")).toList();
        assertThat(rows).extracting(r -> r.getField("tenant_id") + " " + r.getField("records_written") + " " + r.getField("bytes_written")
                + " " + r.getField("write_requests") + " " + r.getField("read_requests") + " " + r.getField("contexts")
                + " " + r.getField("forgets") + " " + r.getField("embed_millis"))
                .containsExactly("sqlx-u1 5 500 3 5 2 1 22", "sqlx-u2 1 50 1 0 0 0 0");
    }

    @Test
    void retentionPurgesOnlyRowsPastIt() throws SQLException {
        try (Connection c = postgres.connect(); Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM cycle_metrics WHERE tenant_id = 'sqlx-ret'");
            s.executeUpdate("INSERT INTO cycle_metrics (tenant_id, cycle_id, ts, close_reason, canary_set_id, canary_count,"
                    + " mean_recall, mean_ndcg, mean_mrr, canary_ranks_json, store_total, store_by_type_json,"
                    + " distinct_content_ratio, mean_bigram_diversity, over_generation_count, accepted_actions) VALUES"
                    + " ('sqlx-ret', 'old', now() - interval '366 days', 'cycle_id', 'cs-r', 1, 1, 1, 1, '[]', 1, '{}', 1, 1, 0, 1),"
                    + " ('sqlx-ret', 'edge', now() - interval '364 days', 'cycle_id', 'cs-r', 1, 1, 1, 1, '[]', 1, '{}', 1, 1, 0, 1)");
            s.executeUpdate("INSERT INTO collapse_alerts VALUES ('sqlx-ret', 'old', 'churn', now() - interval '400 days', 'cs-r', 'd')");
            s.executeUpdate("INSERT INTO canary_queries VALUES ('sqlx-ret', 'cs-gone', 'c000', 'a', 'memory', 'q', 'auto',"
                    + " now() - interval '500 days'), ('sqlx-ret', 'cs-r', 'c000', 'a', 'memory', 'q', 'auto', now() - interval '500 days')");
            try (ResultSet rs = s.executeQuery("SELECT engram_purge_expired_metrics(365)")) {
                rs.next();
                assertThat(rs.getLong(1)).isGreaterThanOrEqualTo(3);
            }
            assertThat(ids(s, "SELECT cycle_id FROM cycle_metrics WHERE tenant_id = 'sqlx-ret'")).containsExactly("edge");
            assertThat(ids(s, "SELECT cycle_id FROM collapse_alerts WHERE tenant_id = 'sqlx-ret'")).isEmpty();
            // the canary set still referenced by a kept cycle stays; the orphaned old one goes
            assertThat(ids(s, "SELECT canary_set_id FROM canary_queries WHERE tenant_id = 'sqlx-ret'")).containsExactly("cs-r");
            // recent rows of other tenants are untouched
            assertThat(ids(s, "SELECT cycle_id FROM cycle_metrics WHERE tenant_id = 'sqlx-drop' ORDER BY cycle_id"))
                    .containsExactly("c1", "c2", "c3");
            assertThatThrownBy(() -> s.executeQuery("SELECT engram_purge_expired_metrics(0)"))
                    .hasMessageContaining("retention_days must be at least 1");
        }
    }

    private static List<String> ids(Statement s, String query) throws SQLException {
        List<String> out = new java.util.ArrayList<>();
        try (ResultSet rs = s.executeQuery(query)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
