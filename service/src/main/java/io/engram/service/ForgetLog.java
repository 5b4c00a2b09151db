package io.engram.service;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;

/**
 * The service's side of the PostgreSQL audit tables (sql/migrations/V3__forgets.sql): a forget's request row
 * (the pipeline's writer completes it), its status, and the audit log; and the reads of the metrics tables the
 * console shows ({@link CycleHistory}). One connection, re-opened after a failure.
 */
final class ForgetLog implements AutoCloseable {

    /** A forget as the table holds it; {@code completedAt} and {@code recordsRemoved} are null while it runs. */
    record Status(String forgetId, String scope, String target, Instant requestedAt, Instant completedAt,
                  Long recordsRemoved) {
    }

    private final String url;
    private final String user;
    private final String password;
    private Connection connection;

    ForgetLog(String url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    synchronized void requested(String tenantId, String forgetId, String scope, String target, Instant at)
            throws SQLException {
        try (PreparedStatement ps = connection().prepareStatement("INSERT INTO forgets (tenant_id, forget_id, scope,"
                + " target, requested_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant_id, forget_id) DO NOTHING")) {
            ps.setString(1, tenantId);
            ps.setString(2, forgetId);
            ps.setString(3, scope);
            ps.setString(4, target);
            ps.setTimestamp(5, Timestamp.from(at));
            ps.executeUpdate();
        } catch (SQLException e) {
            close();
            throw e;
        }
    }

    synchronized void audit(String tenantId, String action, String detail) throws SQLException {
        try (PreparedStatement ps = connection().prepareStatement(
                "INSERT INTO api_audit (tenant_id, action, detail) VALUES (?, ?, ?)")) {
            ps.setString(1, tenantId);
            ps.setString(2, action);
            ps.setString(3, detail);
            ps.executeUpdate();
        } catch (SQLException e) {
            close();
            throw e;
        }
    }

    synchronized Optional<Status> status(String tenantId, String forgetId) throws SQLException {
        try (PreparedStatement ps = connection().prepareStatement("SELECT scope, target, requested_at, completed_at,"
                + " records_removed FROM forgets WHERE tenant_id = ? AND forget_id = ?")) {
            ps.setString(1, tenantId);
            ps.setString(2, forgetId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                Timestamp completed = rs.getTimestamp(4);
                long removed = rs.getLong(5);
                return Optional.of(new Status(forgetId, rs.getString(1), rs.getString(2), rs.getTimestamp(3).toInstant(),
                        completed == null ? null : completed.toInstant(), rs.wasNull() ? null : removed));
            }
        } catch (SQLException e) {
            close();
            throw e;
        }
    }

    /** A read of other tables over the same connection (re-opened after a failure). */
    interface Read<T> {
        T run(Connection connection) throws SQLException;
    }

    synchronized <T> T read(Read<T> read) throws SQLException {
        try {
            return read.run(connection());
        } catch (SQLException e) {
            close();
            throw e;
        }
    }

    /** Whether PostgreSQL answers (readiness). */
    synchronized boolean reachable() {
        try {
            return connection().isValid(2);
        } catch (SQLException e) {
            close();
            return false;
        }
    }

    private Connection connection() throws SQLException {
        if (connection == null) {
            connection = DriverManager.getConnection(url, user, password);
        }
        return connection;
    }

    @Override
    public synchronized void close() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // closing a broken connection: nothing to keep
            }
            connection = null;
        }
    }
}
