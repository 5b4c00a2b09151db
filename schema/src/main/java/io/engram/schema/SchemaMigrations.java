package io.engram.schema;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Applies the versioned migrations of {@code sql/migrations} ({@code V<n>__<name>.sql}), each in its own
 * transaction, and records them in {@code engram_schema_history}. Applied files are append-only: a changed
 * checksum is an error, not something to re-run.
 */
public final class SchemaMigrations {

    static final String RESOURCE_DIR = "engram/sql/migrations";
    private static final Pattern FILE_NAME = Pattern.compile("V(\\d+)__([A-Za-z0-9_]+)\\.sql");

    /** One migration file. */
    public record Migration(int version, String name, String sql) {
        String checksum() {
            try {
                return HexFormat.of().formatHex(
                        MessageDigest.getInstance("SHA-256").digest(sql.getBytes(StandardCharsets.UTF_8)));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private SchemaMigrations() {
    }

    /** Applies every migration not yet recorded; returns the versions applied now. */
    public static List<Integer> applyPending(Connection connection) throws SQLException {
        List<Migration> migrations = bundled();
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        List<Integer> applied = new ArrayList<>();
        try {
            try (Statement s = connection.createStatement()) {
                // Serialises concurrent starters (several launchers, a deploy job) on one database, before
                // anything is created: two concurrent CREATE TABLE IF NOT EXISTS can still collide.
                s.execute("SELECT pg_advisory_xact_lock(7355608)");
                s.execute("CREATE TABLE IF NOT EXISTS engram_schema_history ("
                        + "version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, "
                        + "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())");
            }
            Map<Integer, String> recorded = recordedChecksums(connection);
            for (Migration m : migrations) {
                String checksum = recorded.get(m.version());
                if (checksum != null) {
                    if (!checksum.equals(m.checksum())) {
                        throw new IllegalStateException("migration V" + m.version() + "__" + m.name()
                                + " was changed after it was applied; add a new migration instead");
                    }
                    continue;
                }
                try (Statement s = connection.createStatement()) {
                    s.execute(m.sql());
                }
                try (PreparedStatement record = connection.prepareStatement(
                        "INSERT INTO engram_schema_history (version, name, checksum) VALUES (?, ?, ?)")) {
                    record.setInt(1, m.version());
                    record.setString(2, m.name());
                    record.setString(3, m.checksum());
                    record.executeUpdate();
                }
                applied.add(m.version());
            }
            connection.commit();
            return applied;
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    private static Map<Integer, String> recordedChecksums(Connection connection) throws SQLException {
        Map<Integer, String> recorded = new TreeMap<>();
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("SELECT version, checksum FROM engram_schema_history")) {
            while (rs.next()) {
                recorded.put(rs.getInt(1), rs.getString(2));
            }
        }
        return recorded;
    }

    /** The migrations on the classpath, ordered by version. */
    public static List<Migration> bundled() {
        URL dir = SchemaMigrations.class.getClassLoader().getResource(RESOURCE_DIR);
        if (dir == null) {
            throw new IllegalStateException("no migrations on the classpath at " + RESOURCE_DIR);
        }
        List<String> names = listNames(dir);
        List<Migration> migrations = new ArrayList<>();
        for (String fileName : names) {
            Matcher m = FILE_NAME.matcher(fileName);
            if (!m.matches()) {
                throw new IllegalStateException("migration file name must be V<n>__<name>.sql: " + fileName);
            }
            migrations.add(new Migration(Integer.parseInt(m.group(1)), m.group(2), read(fileName)));
        }
        migrations.sort(Comparator.comparingInt(Migration::version));
        for (int i = 0; i < migrations.size(); i++) {
            if (migrations.get(i).version() != i + 1) {
                throw new IllegalStateException("migration versions must run 1..n without gaps, found V"
                        + migrations.get(i).version() + " at position " + (i + 1));
            }
        }
        return migrations;
    }

    private static List<String> listNames(URL dir) {
        try {
            if ("jar".equals(dir.getProtocol())) {
                JarURLConnection connection = (JarURLConnection) dir.openConnection();
                // a cached JarFile is shared with the class loader: closing it would break later loads
                connection.setUseCaches(false);
                try (JarFile jar = connection.getJarFile()) {
                    String prefix = RESOURCE_DIR + "/";
                    return jar.stream()
                            .map(e -> e.getName())
                            .filter(n -> n.startsWith(prefix) && n.length() > prefix.length() && !n.endsWith("/"))
                            .map(n -> n.substring(prefix.length()))
                            .toList();
                }
            }
            try (Stream<Path> files = Files.list(Path.of(dir.toURI()))) {
                return files.map(p -> p.getFileName().toString()).toList();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list migrations", e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String read(String fileName) {
        try (InputStream in = SchemaMigrations.class.getClassLoader()
                .getResourceAsStream(RESOURCE_DIR + "/" + fileName)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
