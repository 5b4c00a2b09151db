package io.engram.launcher;

import io.engram.service.ApiKeys;
import io.engram.service.LogFormat;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "up", mixinStandardHelpOptions = true,
        description = "Run the whole product live on the embedded default (Kafka, OpenSearch, PostgreSQL, the Engram"
                + " job on a local MiniCluster, the memory service) until Ctrl-C.")
final class UpCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "Keep the servers' data and the job's checkpoints here; a restart resumes from the latest"
                    + " checkpoint (default: nothing kept).")
    Path dataDir;

    @Option(names = "--fresh", description = "with --data-dir: start the job without state; its checkpoints are set"
            + " aside, not restored")
    boolean fresh;

    @Option(names = "--port", paramLabel = "PORT", description = "The API's port on 127.0.0.1 (default: ${DEFAULT-VALUE}).")
    int port = 8080;

    @Option(names = "--config", converter = ExistingPath.class, paramLabel = "FILE",
            description = "Settings on top of the embedded ones (docs/operations.md), e.g. logging.format=json.")
    Path config;

    @Option(names = "--tenants", split = ",", paramLabel = "TENANT",
            description = "Tenants to generate an API key for; * makes an operator key, which reads every tenant"
                    + " and writes none (default: ${DEFAULT-VALUE}).")
    List<String> tenants = List.of("default");

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (fresh && dataDir == null) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "--fresh sets the state of a --data-dir aside: without one, up keeps no state");
        }
        Properties settings = config == null ? new Properties() : RunCommand.load(config);
        LogFormat.apply(settings.getProperty(LogFormat.KEY));
        try (UntilStopped untilStopped = new UntilStopped("engram-up");
             LiveProduct product = LiveProduct.start(Optional.ofNullable(dataDir), fresh, port, tenants, settings,
                line -> {
                    out.println("[up] " + line);
                    out.flush();
                });
             AutoCloseable recorded = RunRegistry.record(product)) {
            out.println("api: " + product.apiUrl());
            out.println("console: " + product.apiUrl() + "/console/ (type a key below)");
            out.println("flink: " + product.flinkRestUrl() + " (REST API)");
            out.println("metrics: " + product.jobMetricsUrl() + " (the job) and " + product.apiUrl()
                    + "/metrics (the service), in the Prometheus format");
            out.println("status: ./engram status (it finds this up; or --config " + product.settingsFile() + ")");
            printKeys(out, product.keys());
            if (dataDir != null) {
                out.println("keys: kept as digests in " + dataDir.resolve(LiveProduct.KEY_FILE)
                        + " (a key shows once, when made; delete its line to revoke it)");
            }
            out.flush();
            untilStopped.await();
        }
        return 0;
    }

    /** One {@code key: TENANT KEY} line a key, an operator key's and the admin key's marked. */
    static void printKeys(PrintWriter out, Map<String, String> keys) {
        keys.forEach((grant, key) -> out.println("key: " + grant + " " + key
                + (grant.equals(ApiKeys.OPERATOR) ? " (operator: reads every tenant)"
                : grant.equals(ApiKeys.ADMIN_GRANT) ? " (admin: makes tenants and keys, ./engram tenants|keys --key)" : "")));
    }
}
