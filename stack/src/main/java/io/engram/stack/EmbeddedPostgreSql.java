package io.engram.stack;

import io.engram.schema.SchemaMigrations;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** A real PostgreSQL server (binaries from Maven Central) on 127.0.0.1, with Engram's migrations applied. */
public final class EmbeddedPostgreSql implements AutoCloseable {

    public static final String DATABASE = "engram";
    public static final String USER = "postgres";

    private final EmbeddedPostgres postgres;
    private final Path dataDir;
    private final boolean temporary;

    private EmbeddedPostgreSql(EmbeddedPostgres postgres, Path dataDir, boolean temporary) {
        this.postgres = postgres;
        this.dataDir = dataDir;
        this.temporary = temporary;
    }

    /** Starts the server, creates the {@value #DATABASE} database when missing and applies pending migrations. */
    public static EmbeddedPostgreSql start(ServiceOptions options) {
        Path dataDir = options.resolveDataDir("engram-postgres");
        EmbeddedPostgres postgres;
        try {
            postgres = EmbeddedPostgres.builder()
                    .setPort(options.resolvePort())
                    .setDataDirectory(dataDir.resolve("pgdata"))
                    .setCleanDataDirectory(options.temporary())
                    .setRegisterShutdownHook(false)
                    // two-phase commit is what the exactly-once JDBC sink uses
                    .setServerConfig("max_prepared_transactions", "16")
                    .setServerConfig("listen_addresses", "127.0.0.1")
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("postgresql did not start", e);
        }
        EmbeddedPostgreSql server = new EmbeddedPostgreSql(postgres, dataDir, options.temporary());
        try {
            server.createDatabase();
            try (Connection c = server.connect()) {
                SchemaMigrations.applyPending(c);
            }
        } catch (SQLException e) {
            server.close();
            throw new IllegalStateException("postgresql setup failed: " + e.getMessage(), e);
        }
        return server;
    }

    private void createDatabase() throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl("postgres"), USER, "");
             PreparedStatement exists = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
            exists.setString(1, DATABASE);
            try (ResultSet rs = exists.executeQuery()) {
                if (rs.next()) {
                    return;
                }
            }
            try (Statement create = c.createStatement()) {
                create.execute("CREATE DATABASE " + DATABASE);
            }
        }
    }

    /** {@code jdbc:postgresql://127.0.0.1:PORT/engram}. */
    public String jdbcUrl() {
        return jdbcUrl(DATABASE);
    }

    private String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database;
    }

    public int port() {
        return postgres.getPort();
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), USER, "");
    }

    @Override
    public void close() {
        try {
            postgres.close();
        } catch (IOException e) {
            throw new UncheckedIOException("postgresql did not stop cleanly", e);
        } finally {
            if (temporary) {
                Directories.deleteQuietly(dataDir);
            }
        }
    }
}
