package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.EmbeddedServicesExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code ./engram status}'s open alerts ({@link StatusCommand#OPEN_ALERTS}) on a real PostgreSQL: the same rows as
 * the aggregate over every cycle row it replaced, ties at a tenant's newest time included, and read by probes
 * per tenant (the rows it reads from {@code cycle_metrics} stay near the number of tenants, not of cycle rows).
 */
@ExtendWith(EmbeddedServicesExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenAlertsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PREFIX = "oa-";
    private static final Instant T0 = Instant.parse("2026-11-20T10:00:00Z");
    private static final int BULK_TENANTS = 40;
    private static final int BULK_CYCLES = 250;
    /** The query status ran before: an aggregate over every cycle row. */
    private static final String EVERY_CYCLE_ROW = "SELECT a.tenant_id, a.kind, a.cycle_id FROM collapse_alerts a"
            + " JOIN (SELECT tenant_id, max(ts) AS ts FROM cycle_metrics GROUP BY tenant_id) latest"
            + " ON a.tenant_id = latest.tenant_id AND a.ts = latest.ts ORDER BY a.tenant_id, a.kind";

    @BeforeAll
    void rows(EmbeddedPostgreSql postgres) throws SQLException {
        try (Connection c = postgres.connect()) {
            delete(c);
            try (PreparedStatement cycle = c.prepareStatement("INSERT INTO cycle_metrics (tenant_id, cycle_id, ts,"
                    + " close_reason, canary_set_id, canary_count, mean_recall, mean_ndcg, mean_mrr, canary_ranks_json,"
                    + " store_total, store_by_type_json, distinct_content_ratio, mean_bigram_diversity,"
                    + " over_generation_count, accepted_actions)"
                    + " VALUES (?, ?, ?, 'cycle_id', 'cs', 1, 1, 1, 1, '[]', 3, '{}', 1, 1, 0, 3)");
                 PreparedStatement alert = c.prepareStatement("INSERT INTO collapse_alerts (tenant_id, cycle_id, kind,"
                         + " ts, canary_set_id, detail) VALUES (?, ?, ?, ?, 'cs', '')")) {
                // a: two cycles close at its newest time, each with alerts; b: its only alert cleared since;
                // c: no alert; d: an alert and no cycle row; e: an alert at its newest time under another cycle id.
                add(cycle, "oa-a", "c1", 1, "oa-a", "c2", 2, "oa-a", "c3", 2, "oa-b", "c1", 1, "oa-b", "c2", 2,
                        "oa-b", "c3", 3, "oa-c", "c1", 1, "oa-e", "c1", 1, "oa-e", "c2", 4);
                add(alert, "oa-a", "c1", "churn", 1, "oa-a", "c2", "collapse-recall", 2, "oa-a", "c3", "churn", 2,
                        "oa-a", "c3", "collapse-recall", 2, "oa-b", "c2", "churn", 2, "oa-d", "c1", "churn", 9,
                        "oa-e", "x", "collapse-shrink", 4);
                for (int t = 0; t < BULK_TENANTS; t++) {
                    String tenant = String.format("%sbulk-%02d", PREFIX, t);
                    for (int k = 0; k < BULK_CYCLES; k++) {
                        add(cycle, tenant, "c" + k, k);
                        if (k % 50 == 0 || k == BULK_CYCLES - 1) {
                            add(alert, tenant, "c" + k, "churn", k);
                        }
                    }
                }
                cycle.executeBatch();
                alert.executeBatch();
            }
            try (Statement s = c.createStatement()) {
                s.execute("ANALYZE cycle_metrics");
                s.execute("ANALYZE collapse_alerts");
            }
        }
    }

    /** Adds rows to the batch, each its string columns then a time as seconds after {@link #T0}. */
    private static void add(PreparedStatement ps, Object... columns) throws SQLException {
        int width = ps.getParameterMetaData().getParameterCount();
        for (int row = 0; row < columns.length; row += width) {
            for (int i = 0; i < width - 1; i++) {
                ps.setString(i + 1, (String) columns[row + i]);
            }
            ps.setTimestamp(width, Timestamp.from(T0.plusSeconds((Integer) columns[row + width - 1])));
            ps.addBatch();
        }
    }

    @AfterAll
    void removeRows(EmbeddedPostgreSql postgres) throws SQLException {
        try (Connection c = postgres.connect()) {
            delete(c);
        }
    }

    private static void delete(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM cycle_metrics WHERE tenant_id LIKE '" + PREFIX + "%'");
            s.executeUpdate("DELETE FROM collapse_alerts WHERE tenant_id LIKE '" + PREFIX + "%'");
        }
    }

    private static List<String> rows(Connection c, String sql) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                rows.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3));
            }
        }
        return rows;
    }

    @Test
    void theSameAlertsAsTheAggregateOverEveryCycleRowTiesIncluded(EmbeddedPostgreSql postgres) throws SQLException {
        try (Connection c = postgres.connect()) {
            List<String> probed = rows(c, StatusCommand.OPEN_ALERTS);
            List<String> aggregated = rows(c, EVERY_CYCLE_ROW);

            assertThat(probed).containsExactlyInAnyOrderElementsOf(aggregated);
            List<String> expected = new ArrayList<>(List.of("oa-a churn c3", "oa-a collapse-recall c2",
                    "oa-a collapse-recall c3"));
            for (int t = 0; t < BULK_TENANTS; t++) {
                expected.add(String.format("%sbulk-%02d churn c%d", PREFIX, t, BULK_CYCLES - 1));
            }
            expected.add("oa-e collapse-shrink x");
            assertThat(probed.stream().filter(r -> r.startsWith(PREFIX)).toList()).as("in order of tenant, kind, cycle")
                    .isEqualTo(expected);
        }
    }

    @Test
    void readsCycleRowsByProbesPerTenantNotEveryRow(EmbeddedPostgreSql postgres) throws Exception {
        try (Connection c = postgres.connect()) {
            long tenants = Long.parseLong(rows(c, "SELECT count(DISTINCT tenant_id), '', '' FROM cycle_metrics")
                    .get(0).strip());
            long cycleRows = Long.parseLong(rows(c, "SELECT count(*), '', '' FROM cycle_metrics").get(0).strip());

            assertThat(cycleRowsRead(c, EVERY_CYCLE_ROW)).as("the aggregate reads them all")
                    .isGreaterThanOrEqualTo(BULK_TENANTS * BULK_CYCLES);
            assertThat(cycleRowsRead(c, StatusCommand.OPEN_ALERTS)).as("%d tenants, %d cycle rows", tenants, cycleRows)
                    .isLessThanOrEqualTo(3 * (tenants + 1));
            assertThat(rows(c, "SELECT indexdef, '', '' FROM pg_indexes WHERE indexname = 'collapse_alerts_tenant_ts'"))
                    .as("migration V4").singleElement().asString().contains("collapse_alerts USING btree (tenant_id, ts)");
        }
    }

    /** The rows the plan's scans of cycle_metrics returned, over all their loops (EXPLAIN ANALYZE). */
    private static long cycleRowsRead(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("EXPLAIN (ANALYZE, FORMAT JSON) " + sql)) {
            assertThat(rs.next()).isTrue();
            return rowsRead(JSON.readTree(rs.getString(1)).get(0).get("Plan"));
        }
    }

    private static long rowsRead(JsonNode node) {
        long rows = "cycle_metrics".equals(node.path("Relation Name").asText())
                ? node.path("Actual Rows").asLong() * node.path("Actual Loops").asLong() : 0;
        for (JsonNode child : node.path("Plans")) {
            rows += rowsRead(child);
        }
        return rows;
    }
}
