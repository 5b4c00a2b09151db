package io.engram.launcher;

import io.engram.service.ApiKeys;
import io.engram.service.LogFormat;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
        CountDownLatch stop = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.countDown();
            try { // let the main thread stop the servers (PostgreSQL is a child process) before the JVM exits
                stopped.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "engram-up-shutdown"));
        Properties settings = config == null ? new Properties() : RunCommand.load(config);
        LogFormat.apply(settings.getProperty(LogFormat.KEY));
        try (LiveProduct product = LiveProduct.start(Optional.ofNullable(dataDir), port, tenants, settings,
                line -> {
                    out.println("[up] " + line);
                    out.flush();
                })) {
            product.restoredFrom().ifPresent(c -> out.println("[up] the job resumed from checkpoint " + c));
            out.println("api: " + product.apiUrl());
            out.println("console: " + product.apiUrl() + "/console/ (type a key below)");
            out.println("flink: " + product.flinkRestUrl() + " (REST API)");
            out.println("metrics: " + product.jobMetricsUrl() + " (the job) and " + product.apiUrl()
                    + "/metrics (the service), in the Prometheus format");
            out.println("status: ./engram status --config " + product.settingsFile());
            product.keys().forEach((tenant, key) -> out.println("key: " + tenant + " " + key
                    + (tenant.equals(ApiKeys.OPERATOR) ? " (operator: reads every tenant)" : "")));
            if (dataDir != null) {
                out.println("keys: kept as digests in " + dataDir.resolve(LiveProduct.KEY_FILE)
                        + " (a key shows once, when made; delete its line to revoke it)");
            }
            out.flush();
            stop.await();
        } finally {
            stopped.countDown();
        }
        return 0;
    }
}
