package io.engram.launcher;

import io.engram.jobs.EngramSetup;
import io.engram.jobs.PipelineConfig;
import io.engram.service.ApiKeys;
import io.engram.service.MemoryService;
import io.engram.service.ServiceConfig;
import io.engram.stack.EmbeddedStack;
import io.engram.stack.ServiceOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.JobClient;

/**
 * The whole product live on its embedded default, in one process: Kafka, OpenSearch and PostgreSQL, the unbounded
 * Engram job on a local MiniCluster, and the memory service with a fresh key per tenant. What {@code ./engram up}
 * runs, and what the service's tests and {@code bench api} run against. With a data directory the servers keep
 * their data there, the job keeps its checkpoints there and a restart resumes from the latest one. The job's
 * REST API and Prometheus reporter listen on ports of their own, and the settings are written to a file for
 * {@code ./engram status --config}.
 */
public final class LiveProduct implements AutoCloseable {

    /** Where a data directory keeps the digests of its API keys. */
    public static final String KEY_FILE = "api-keys.properties";
    /** Where a data directory keeps the settings of the running product, for {@code ./engram status}. */
    public static final String SETTINGS_FILE = "engram.properties";

    private final EmbeddedStack stack;
    private final JobClient job;
    private final MemoryService service;
    private final Map<String, String> keyByTenant;
    private final Properties pipeline;
    private final Optional<Path> restoredFrom;
    private final Path settingsFile;
    private final boolean settingsTemporary;

    private LiveProduct(EmbeddedStack stack, JobClient job, MemoryService service, Map<String, String> keyByTenant,
                        Properties pipeline, Optional<Path> restoredFrom, Path settingsFile, boolean settingsTemporary) {
        this.stack = stack;
        this.job = job;
        this.service = service;
        this.keyByTenant = keyByTenant;
        this.pipeline = pipeline;
        this.restoredFrom = restoredFrom;
        this.settingsFile = settingsFile;
        this.settingsTemporary = settingsTemporary;
    }

    /**
     * Starts everything; {@code overrides} are pipeline settings on top of the embedded ones, {@code port} 0 picks
     * a free port. With a data directory, its newest checkpoint is restored when it was written for this pipeline
     * (else the start is refused), unless {@code fresh} sets the checkpoints aside.
     */
    public static LiveProduct start(Optional<Path> dataDir, int port, List<String> tenants, Properties overrides,
                             Consumer<String> progress) throws Exception {
        return start(dataDir, false, port, tenants, overrides, progress);
    }

    static LiveProduct start(Optional<Path> dataDir, boolean fresh, int port, List<String> tenants, Properties overrides,
                             Consumer<String> progress) throws Exception {
        EmbeddedStack stack = EmbeddedStack.start(EmbeddedStack.Config.all(dataDir.map(d -> d.resolve("stack"))),
                (s, address) -> progress.accept(s.name().toLowerCase() + " ready at " + address));
        try {
            Properties p = LocalPipeline.embedded(stack, false);
            p.setProperty("flink.rest.address", "127.0.0.1");
            p.setProperty("flink.rest.bind-address", "127.0.0.1");
            p.setProperty("flink.rest.port", String.valueOf(ServiceOptions.freePort()));
            p.setProperty("flink.metrics.reporter.prom.factory.class",
                    "org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
            p.setProperty("flink.metrics.reporter.prom.port", String.valueOf(ServiceOptions.freePort()));
            p.putAll(overrides);
            PipelineConfig config = PipelineConfig.fromProperties(p);
            LocalPipeline.Prepared prepared;
            if (dataDir.isPresent()) {
                PipelineState state = new PipelineState(dataDir.get().resolve("checkpoints"));
                prepared = LocalPipeline.prepare(p, config, PipelineIdentity.of(config), state, new LocalPipeline.Restore(
                        fresh, "start with another --data-dir, or without its state with --fresh (its checkpoints are"
                                + " set aside, not deleted)", "the DIR/checkpoints of the data directory it was written with"),
                        progress);
            } else {
                EngramSetup.prepare(config, step -> { });
                prepared = new LocalPipeline.Prepared(new JobID(), Optional.empty());
            }
            JobClient job = LocalPipeline.environment(p, config, prepared.job()).executeAsync("engram-live");
            // and the operator's admin key, which makes tenants and keys by API (docs/operations.md)
            List<String> grants = java.util.stream.Stream.concat(tenants.stream(), java.util.stream.Stream.of(ApiKeys.ADMIN_GRANT))
                    .distinct().toList();
            Map<String, String> keys;
            ApiKeys apiKeys;
            if (dataDir.isPresent()) {
                keys = keepKeys(dataDir.get().resolve(KEY_FILE), grants);
                apiKeys = ApiKeys.watching(dataDir.get().resolve(KEY_FILE));
            } else {
                keys = ApiKeys.generate(grants);
                apiKeys = ApiKeys.of(keys);
            }
            ServiceConfig serviceConfig = ServiceConfig.from(p, Map.of()).withListen("127.0.0.1", port);
            MemoryService service = MemoryService.start(serviceConfig, apiKeys);
            Path settings = dataDir.isPresent() ? dataDir.get().resolve(SETTINGS_FILE)
                    : Files.createTempFile("engram-up-", ".properties");
            try (var writer = Files.newBufferedWriter(settings)) {
                p.store(writer, "the running ./engram up: ./engram status --config " + settings);
            }
            return new LiveProduct(stack, job, service, keys, p, prepared.restored(), settings, dataDir.isEmpty());
        } catch (Exception | Error e) {
            stack.close();
            throw e;
        }
    }

    /**
     * Keys made for the tenants {@code keyFile} has none for, their digests added to it: a restart on the same
     * data directory keeps the keys its agents hold. Returns the new keys (tenant → key), the only time they show.
     */
    private static Map<String, String> keepKeys(Path keyFile, List<String> tenants) throws IOException {
        Set<String> kept = new HashSet<>();
        if (Files.exists(keyFile)) {
            for (String line : Files.readAllLines(keyFile)) {
                if (line.contains("=") && !line.startsWith("#")) {
                    kept.add(line.substring(line.lastIndexOf('=') + 1).strip());
                }
            }
        }
        Map<String, String> made = ApiKeys.generate(tenants.stream().filter(t -> !kept.contains(t)).toList());
        StringBuilder lines = new StringBuilder();
        made.forEach((tenant, key) -> lines.append(ApiKeys.keyFileLine(key, tenant)).append('\n'));
        Files.writeString(keyFile, lines, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        return made;
    }

    public String apiUrl() {
        return "http://127.0.0.1:" + service.port();
    }

    /**
     * The key made at this start for each tenant that had none (shown once, kept only as digests), and the admin
     * key ({@link ApiKeys#ADMIN_GRANT}); with a data directory, the keys of earlier starts are kept and not in this map.
     */
    public Map<String, String> keys() {
        return keyByTenant;
    }

    /** The pipeline's settings, the embedded servers' addresses among them. */
    public Properties pipeline() {
        return pipeline;
    }

    public Optional<Path> restoredFrom() {
        return restoredFrom;
    }

    /** The settings of this product, with its servers' addresses: what {@code ./engram status --config} reads. */
    public Path settingsFile() {
        return settingsFile;
    }

    /** The job's Flink REST API (no web UI: the embedded product does not ship it). */
    public String flinkRestUrl() {
        return "http://127.0.0.1:" + pipeline.getProperty("flink.rest.port");
    }

    /** The job's metrics in the Prometheus format (the service's are on {@link #apiUrl()}{@code /metrics}). */
    public String jobMetricsUrl() {
        return "http://127.0.0.1:" + pipeline.getProperty("flink.metrics.reporter.prom.port") + "/metrics";
    }

    @Override
    public void close() throws Exception {
        try {
            service.close();
            job.cancel().get(60, TimeUnit.SECONDS);
        } finally {
            stack.close();
            if (settingsTemporary) {
                Files.deleteIfExists(settingsFile);
            }
        }
    }
}
