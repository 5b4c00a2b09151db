package io.engram.service;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.model.collapse.CycleMetrics;
import io.engram.model.collapse.CycleRows;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The service's PostgreSQL: the {@link ForgetLog} tables (sql/migrations/V3__forgets.sql) and the cycle rows it
 * shows ({@link CycleSource}). One connection, re-opened after a failure.
 */
final class ServiceDatabase implements ForgetLog, CycleSource, AutoCloseable {

    private final Jdbc jdbc;

    ServiceDatabase(Jdbc jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    public void requested(String tenantId, String forgetId, String scope, String target, Instant at) throws SQLException {
        update("INSERT INTO forgets (tenant_id, forget_id, scope, target, requested_at) VALUES (?, ?, ?, ?, ?)"
                + " ON CONFLICT (tenant_id, forget_id) DO NOTHING", tenantId, forgetId, scope, target, Timestamp.from(at));
    }

    @Override
    public void audit(String tenantId, String action, String detail) throws SQLException {
        update("INSERT INTO api_audit (tenant_id, action, detail) VALUES (?, ?, ?)", tenantId, action, detail);
    }

    private void update(String sql, Object... values) throws SQLException {
        jdbc.update(sql, values);
    }

    private <T> T work(Jdbc.Work<T> work) throws SQLException {
        return jdbc.work(work);
    }

    @Override
    public Optional<Status> status(String tenantId, String forgetId) throws SQLException {
        return work(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT scope, target, requested_at, completed_at,"
                    + " records_removed FROM forgets WHERE tenant_id = ? AND forget_id = ?")) {
                ps.setString(1, tenantId);
                ps.setString(2, forgetId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    Timestamp completed = rs.getTimestamp(4);
                    long removed = rs.getLong(5);
                    return Optional.of(new Status(forgetId, rs.getString(1), rs.getString(2),
                            rs.getTimestamp(3).toInstant(), completed == null ? null : completed.toInstant(),
                            rs.wasNull() ? null : removed));
                }
            }
        });
    }

    @Override
    public List<CycleMetrics> newest(String tenantId, int limit) throws SQLException {
        List<CycleMetrics> rows = work(c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT * FROM cycle_metrics WHERE tenant_id = ? ORDER BY ts DESC, cycle_id DESC LIMIT ?")) {
                ps.setString(1, tenantId);
                ps.setInt(2, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    List<CycleMetrics> newestFirst = new ArrayList<>();
                    while (rs.next()) {
                        newestFirst.add(CycleRows.fromJson(row(rs)));
                    }
                    return newestFirst;
                }
            }
        });
        Collections.reverse(rows);
        return rows;
    }

    /** The current row as JSON, column by column, a timestamp as ISO-8601 (what {@link CycleRows} reads). */
    private static ObjectNode row(ResultSet rs) throws SQLException {
        ResultSetMetaData columns = rs.getMetaData();
        ObjectNode row = ResponsesJson.JSON.createObjectNode();
        for (int i = 1; i <= columns.getColumnCount(); i++) {
            Object v = rs.getObject(i);
            row.set(columns.getColumnName(i), ResponsesJson.JSON.valueToTree(
                    v instanceof Timestamp t ? t.toInstant().toString() : v));
        }
        return row;
    }

    @Override
    public List<String> tenants(String after, int limit) throws SQLException {
        return work(c -> {
            List<String> tenants = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(TENANTS_AFTER)) {
                ps.setString(1, after);
                ps.setInt(2, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        tenants.add(rs.getString(1));
                    }
                }
            }
            return tenants;
        });
    }

    /**
     * The next {@code limit} tenants: one primary-key probe per tenant (each the least tenant above the last), so
     * a page costs the same however many tenants and cycle rows the table holds, where {@code DISTINCT} reads them all.
     */
    private static final String TENANTS_AFTER = "WITH RECURSIVE page(tenant_id) AS ("
            + " SELECT min(tenant_id) FROM cycle_metrics WHERE tenant_id > ?"
            + " UNION ALL SELECT (SELECT min(c.tenant_id) FROM cycle_metrics c WHERE c.tenant_id > page.tenant_id)"
            + " FROM page WHERE page.tenant_id IS NOT NULL)"
            + " SELECT tenant_id FROM page WHERE tenant_id IS NOT NULL LIMIT ?";

    /** Whether PostgreSQL answers (readiness). */
    boolean reachable() {
        return jdbc.reachable();
    }

    @Override
    public void close() {
        jdbc.close();
    }
}
