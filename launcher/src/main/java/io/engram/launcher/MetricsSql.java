package io.engram.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Flink SQL over the metrics history in PostgreSQL: a batch table environment on a local cluster that lives as
 * long as this object, with the tables of sql/flink/tables.sql mapped through the JDBC connector.
 */
final class MetricsSql {

    private final TableEnvironment tables;

    MetricsSql(String postgresUrl, String user, String password) {
        tables = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        String ddl = resource("engram/sql/flink/tables.sql")
                .replace("${postgres.url}", postgresUrl)
                .replace("${postgres.user}", user)
                .replace("${postgres.password}", password);
        for (String statement : statements(ddl)) {
            tables.executeSql(statement);
        }
    }

    TableResult execute(String statement) {
        return tables.executeSql(statement);
    }

    /** The rows of a query. */
    List<Row> query(String select) {
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = tables.executeSql(select).collect()) {
            it.forEachRemaining(rows::add);
        } catch (Exception e) {
            throw e instanceof RuntimeException re ? re : new IllegalStateException(e);
        }
        return rows;
    }

    /** The statements of a script: split at semicolons that end a line, comment lines dropped. */
    static List<String> statements(String script) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : script.split("\n")) {
            if (line.strip().startsWith("--")) {
                continue;
            }
            current.append(line).append('\n');
            if (line.strip().endsWith(";")) {
                String statement = current.toString().strip();
                statements.add(statement.substring(0, statement.length() - 1));
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            statements.add(current.toString().strip());
        }
        return statements;
    }

    private static String resource(String name) {
        try (InputStream in = MetricsSql.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is not on the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
