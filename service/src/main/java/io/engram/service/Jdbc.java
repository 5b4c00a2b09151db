package io.engram.service;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** One PostgreSQL connection, opened on first use and again after a failure; its work runs one at a time. */
final class Jdbc implements AutoCloseable {

    /** A statement's work over the connection. */
    interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    private final String url;
    private final String user;
    private final String password;
    private Connection connection;

    Jdbc(String url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    /** Runs {@code work}; a failure closes the connection, so the next work opens a fresh one. */
    synchronized <T> T work(Work<T> work) throws SQLException {
        try {
            return work.run(connection());
        } catch (SQLException e) {
            close();
            throw e;
        }
    }

    /** Runs {@code work} in one transaction, rolled back when it fails. */
    <T> T transaction(Work<T> work) throws SQLException {
        return work(c -> {
            c.setAutoCommit(false);
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        });
    }

    /** One statement with these parameters; the rows it changed. */
    int update(String sql, Object... values) throws SQLException {
        return work(c -> update(c, sql, values));
    }

    static int update(Connection c, String sql, Object... values) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                ps.setObject(i + 1, values[i]);
            }
            return ps.executeUpdate();
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
