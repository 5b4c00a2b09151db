package io.engram.stack;

import io.engram.schema.SchemaMigrations;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A real PostgreSQL server (binaries from Maven Central) on 127.0.0.1, with Engram's migrations applied. */
public final class EmbeddedPostgreSql implements AutoCloseable {

    public static final String DATABASE = "engram";
    public static final String USER = "postgres";

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPostgreSql.class);
    private static final Duration ORPHAN_SHUTDOWN = Duration.ofSeconds(30);

    private final EmbeddedPostgres postgres;
    private final Path dataDir;
    private final boolean temporary;
    private final DataDirLock lock;

    private EmbeddedPostgreSql(EmbeddedPostgres postgres, Path dataDir, boolean temporary, DataDirLock lock) {
        this.postgres = postgres;
        this.dataDir = dataDir;
        this.temporary = temporary;
        this.lock = lock;
    }

    /**
     * TLS with the given server certificate (chain) and key, both PEM, and one more login role that must use
     * it and its password (SCRAM), as a managed PostgreSQL wants: {@code hostssl} for that role, nothing else
     * over the network but the {@value #USER} administrator this class and the tests use.
     */
    public record TlsLogin(Path certificateChain, Path privateKey, String user, String password) {
    }

    /** Starts the server, creates the {@value #DATABASE} database when missing and applies pending migrations. */
    public static EmbeddedPostgreSql start(ServiceOptions options) {
        return start(options, Optional.empty());
    }

    /** The same, with {@code tls} switched on ({@link TlsLogin}). */
    public static EmbeddedPostgreSql start(ServiceOptions options, Optional<TlsLogin> tls) {
        Path dataDir = options.resolveDataDir("engram-postgres");
        // the server is a child process, which outlives a JVM killed with -9: a data directory that survives
        // restarts is locked by its owner, and a server the lock's previous owner left behind is stopped first
        DataDirLock lock = DataDirLock.acquire(dataDir, "PostgreSQL");
        EmbeddedPostgres postgres;
        try {
            stopOrphan(dataDir.resolve("pgdata"));
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                    .setPort(options.resolvePort())
                    .setDataDirectory(dataDir.resolve("pgdata"))
                    .setCleanDataDirectory(options.temporary())
                    .setRegisterShutdownHook(false)
                    // two-phase commit is what the exactly-once JDBC sink uses
                    .setServerConfig("max_prepared_transactions", "16")
                    .setServerConfig("listen_addresses", "127.0.0.1");
            if (tls.isPresent()) {
                Path hba = Files.writeString(dataDir.resolve("engram-hba.conf"), "local all all trust\n"
                        + "host all " + USER + " 127.0.0.1/32 trust\n"
                        + "hostssl all " + tls.get().user() + " 127.0.0.1/32 scram-sha-256\n");
                builder.setServerConfig("ssl", "on")
                        .setServerConfig("ssl_cert_file", tls.get().certificateChain().toAbsolutePath().toString())
                        .setServerConfig("ssl_key_file", tls.get().privateKey().toAbsolutePath().toString())
                        .setServerConfig("hba_file", hba.toAbsolutePath().toString())
                        .setServerConfig("password_encryption", "scram-sha-256");
            }
            postgres = builder.start();
        } catch (IOException e) {
            lock.close();
            throw new UncheckedIOException("postgresql did not start", e);
        } catch (RuntimeException e) {
            lock.close();
            throw e;
        }
        EmbeddedPostgreSql server = new EmbeddedPostgreSql(postgres, dataDir, options.temporary(), lock);
        try {
            server.createDatabase();
            try (Connection c = server.connect()) {
                SchemaMigrations.applyPending(c);
                if (tls.isPresent()) {
                    server.createLogin(c, tls.get());
                }
            }
        } catch (SQLException e) {
            server.close();
            throw new IllegalStateException("postgresql setup failed: " + e.getMessage(), e);
        }
        return server;
    }

    /**
     * Stops the server whose pid {@code postmaster.pid} names, if it still runs: with the data directory's lock
     * held, it can only be one a killed predecessor left behind. A smart shutdown (its clients died with that
     * process) within {@link #ORPHAN_SHUTDOWN}, else a kill; either way PostgreSQL recovers from its WAL on start.
     */
    private static void stopOrphan(Path pgdata) throws IOException {
        Path pidFile = pgdata.resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return;
        }
        List<String> lines = Files.readAllLines(pidFile);
        if (lines.size() < 2 || !lines.get(0).strip().matches("\\d+")) {
            return; // a pid file being written or torn: PostgreSQL itself judges it
        }
        Optional<ProcessHandle> orphan = ProcessHandle.of(Long.parseLong(lines.get(0).strip()))
                .filter(p -> p.info().command().map(c -> c.endsWith("postgres")).orElse(false));
        if (orphan.isEmpty()) {
            return;
        }
        LOG.warn("stopping PostgreSQL (pid {}) left running on {} by a process that died", orphan.get().pid(), pgdata);
        orphan.get().destroy();
        try {
            orphan.get().onExit().get(ORPHAN_SHUTDOWN.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            orphan.get().destroyForcibly();
            orphan.get().onExit().join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while stopping the PostgreSQL left on " + pgdata, e);
        } catch (ExecutionException e) {
            throw new IOException("could not stop the PostgreSQL left on " + pgdata, e);
        }
    }

    private void createLogin(Connection c, TlsLogin login) throws SQLException {
        try (PreparedStatement exists = c.prepareStatement("SELECT 1 FROM pg_roles WHERE rolname = ?")) {
            exists.setString(1, login.user());
            try (ResultSet rs = exists.executeQuery()) {
                if (rs.next()) {
                    return;
                }
            }
        }
        try (Statement create = c.createStatement()) { // an owner of everything, as a managed service's admin role is
            create.execute("CREATE ROLE \"" + login.user() + "\" LOGIN SUPERUSER PASSWORD '"
                    + login.password().replace("'", "''") + "'");
        }
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
            lock.close();
            if (temporary) {
                Directories.deleteQuietly(dataDir);
            }
        }
    }
}
