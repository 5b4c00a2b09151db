package io.engram.service;

import io.engram.client.KafkaClients;
import io.engram.model.collapse.CollapseConfig;
import io.engram.client.PayloadValidator;
import io.engram.client.Secrets;
import io.engram.store.MemoryIndexTemplate;
import io.engram.store.OpenSearchConnection;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The memory service's settings (docs/operations.md, "The memory service"): the pipeline's connection keys
 * from the same properties file, and its own {@code service.*} keys. Every key may be overridden by an
 * environment variable named {@code ENGRAM_} + the key in upper case with {@code .} and {@code -} as {@code _}
 * ({@code ENGRAM_POSTGRES_PASSWORD}), and a password may be a {@link io.engram.client.Secrets} reference
 * ({@code ${env:NAME}}, {@code ${file:PATH}}): how a Kubernetes Secret or a compose file passes secrets. The
 * Kafka client settings are the pipeline's {@code kafka.properties.*}.
 *
 * @param quotas         every tenant's quotas but those it was given by API, and whether usage is metered
 * @param maxBatch       records in one write request
 * @param logFormat      {@code text} or {@code json} ({@link LogFormat})
 * @param collapse       the detector's thresholds, the same {@code collapse.*} keys as the job's (the health page draws them)
 * @param webhooks       the delivery of the change feed to the tenants' webhooks ({@code webhooks.*})
 */
public record ServiceConfig(String host, int port, KafkaClients kafka, OpenSearchConnection openSearch, String index,
                            String postgresUrl, String postgresUser, String postgresPassword,
                            PayloadValidator.Limits limits, QuotaSettings quotas, int maxBatch,
                            String logFormat, CollapseConfig collapse, WebhookSettings webhooks) {

    /** The settings of a properties file, with the environment's overrides. */
    public static ServiceConfig load(Path file, Map<String, String> environment) throws IOException {
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(in);
        }
        return from(properties, environment);
    }

    public static ServiceConfig from(Properties properties, Map<String, String> environment) {
        Settings p = new Settings(properties, environment);
        return new ServiceConfig(
                p.get("service.host", "0.0.0.0"),
                Integer.parseInt(p.get("service.port", "8080")),
                new KafkaClients(p.get("kafka.bootstrap", "127.0.0.1:9092"), KafkaClients.propertiesIn(properties)),
                OpenSearchConnection.read(p::get),
                p.get("opensearch.index", MemoryIndexTemplate.INDEX),
                p.get("postgres.url", "jdbc:postgresql://127.0.0.1:5432/engram"),
                p.get("postgres.user", "postgres"),
                p.get("postgres.password", ""),
                new PayloadValidator.Limits(
                        Integer.parseInt(p.get("limits.text-bytes", String.valueOf(PayloadValidator.Limits.DEFAULT.maxTextBytes()))),
                        Integer.parseInt(p.get("limits.document-bytes", String.valueOf(PayloadValidator.Limits.DEFAULT.maxDocumentBytes())))),
                quotaSettings(p),
                Integer.parseInt(p.get("service.max-batch", "500")),
                p.get(LogFormat.KEY, "text"),
                CollapseConfig.read(p::get),
                WebhookSettings.read(p::get));
    }

    /**
     * Quotas of a tenant not given its own by API: {@code quota.records} (records it stores, all but the summaries
     * and windows made of them), {@code quota.text-bytes-per-day}, {@code quota.writes-per-second} and
     * {@code quota.reads-per-second} (both {@code service.rate-limit.per-second} unless set, 50);
     * {@code service.rate-limit.burst} requests at once at that rate (100), in proportion at others;
     * {@code service.metering=false} turns usage and the records and bytes quotas off.
     */
    private static QuotaSettings quotaSettings(Settings p) {
        String rate = p.get("service.rate-limit.per-second", "50");
        double perSecond = Double.parseDouble(rate);
        String records = p.get("quota.records", "");
        String bytes = p.get("quota.text-bytes-per-day", "");
        return new QuotaSettings(new TenantStore.Quotas(records.isEmpty() ? null : Long.parseLong(records),
                bytes.isEmpty() ? null : Long.parseLong(bytes),
                Double.parseDouble(p.get("quota.writes-per-second", rate)),
                Double.parseDouble(p.get("quota.reads-per-second", rate))),
                Integer.parseInt(p.get("service.rate-limit.burst", "100")) / perSecond,
                Boolean.parseBoolean(p.get("service.metering", "true")));
    }

    public ServiceConfig withListen(String newHost, int newPort) {
        return new ServiceConfig(newHost, newPort, kafka, openSearch, index, postgresUrl, postgresUser,
                postgresPassword, limits, quotas, maxBatch, logFormat, collapse, webhooks);
    }

    /** Every tenant's reads and writes at {@code perSecond}, {@code burst} at once. */
    public ServiceConfig withRateLimit(double perSecond, int burst) {
        TenantStore.Quotas d = quotas.defaults();
        return new ServiceConfig(host, port, kafka, openSearch, index, postgresUrl, postgresUser, postgresPassword,
                limits, new QuotaSettings(new TenantStore.Quotas(d.records(), d.textBytesPerDay(), perSecond, perSecond),
                burst / perSecond, quotas.metering()), maxBatch, logFormat, collapse, webhooks);
    }

    private record Settings(Properties properties, Map<String, String> environment) {
        String get(String key, String fallback) {
            String variable = "ENGRAM_" + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
            String value = environment.get(variable);
            if (value == null) {
                value = properties.getProperty(key, fallback);
            }
            return value.trim();
        }
    }
}
