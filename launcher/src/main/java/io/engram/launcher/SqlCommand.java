package io.engram.launcher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ./engram sql "QUERY"} or {@code ./engram sql -f FILE}: ad hoc Flink SQL over the metrics history. */
@Command(name = "sql", mixinStandardHelpOptions = true,
        description = {"Run Flink SQL over the metrics history in PostgreSQL.",
                "Tables cycle_metrics, collapse_alerts and canary_queries (sql/flink); prints each result as a table.",
                "Examples: sql/flink/examples."})
final class SqlCommand implements Callable<Integer> {

    @Parameters(arity = "0..1", paramLabel = "QUERY", description = "SQL to run (several statements separated by ;)")
    String query;

    @Option(names = {"-f", "--file"}, converter = ExistingPath.class, description = "a file of SQL statements")
    Path file;

    @Option(names = "--postgres-url", defaultValue = "${ENGRAM_POSTGRES_URL:-jdbc:postgresql://127.0.0.1:5432/engram}",
            description = "JDBC URL of the metrics database (default: ${DEFAULT-VALUE}, or $ENGRAM_POSTGRES_URL)")
    String postgresUrl;

    @Option(names = "--postgres-user", defaultValue = "${ENGRAM_POSTGRES_USER:-postgres}")
    String postgresUser;

    @Option(names = "--postgres-password", defaultValue = "${ENGRAM_POSTGRES_PASSWORD:-}")
    String postgresPassword;

    @Override
    public Integer call() throws Exception {
        if ((query == null) == (file == null)) {
            System.err.println("give a QUERY or -f FILE");
            return 2;
        }
        List<String> statements = MetricsSql.statements(file != null ? Files.readString(file) : query);
        MetricsSql sql = new MetricsSql(postgresUrl, postgresUser, postgresPassword);
        for (String statement : statements) {
            sql.execute(statement).print();
        }
        return 0;
    }
}
