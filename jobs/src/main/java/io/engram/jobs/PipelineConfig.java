package io.engram.jobs;

import io.engram.client.PayloadValidator;
import io.engram.model.collapse.CollapseConfig;
import io.engram.model.partition.PartitionConfig;
import io.engram.model.partition.TierBudget;
import java.io.Serializable;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;

/**
 * Everything the pipeline can be told, with the defaults of the embedded product. {@link #fromProperties}
 * reads the keys documented in docs/operations.md (e.g. {@code kafka.bootstrap}, {@code opensearch.url},
 * {@code postgres.url}); a key not given keeps its default.
 */
public record PipelineConfig(String kafkaBootstrap, String consumerGroup, String startingOffsets, boolean bounded,
                             String openSearchUrl,
                             String index, String postgresUrl, String postgresUser, String postgresPassword,
                             PayloadValidator.Limits limits, int tau, double alpha1, double alpha2,
                             boolean quantizedEmbedder, int embedCacheEntries, int embedBatch, Duration embedDelay,
                             int bulkSize, Duration bulkDelay, Duration outOfOrderness, Duration sourceIdleness,
                             Duration allowedLateness, Duration sessionInactivity, Duration stateTtl,
                             Duration quietGap, CollapseConfig collapse, Duration checkpointInterval, int parallelism,
                             String transactionalIdPrefix, int topicPartitions) implements Serializable {

    public static PipelineConfig defaults() {
        return new PipelineConfig("127.0.0.1:9092", "engram-pipeline", "committed", false, "http://127.0.0.1:9200",
                "engram-memories-v1", "jdbc:postgresql://127.0.0.1:5432/engram", "postgres", "",
                PayloadValidator.Limits.DEFAULT, PartitionConfig.DEFAULT_TAU, TierBudget.DEFAULT_ALPHA1,
                TierBudget.DEFAULT_ALPHA2, false, 100_000, 32, Duration.ofMillis(50), 500, Duration.ofMillis(200),
                Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofMinutes(30),
                Duration.ofDays(30), Duration.ofMinutes(10), CollapseConfig.DEFAULT, Duration.ofSeconds(10), 0,
                "engram", 2);
    }

    /**
     * Reads the settings; a key that is neither one of {@link #keys()} nor a {@code flink.*} key is refused
     * (a misspelt key would otherwise silently keep its default).
     */
    public static PipelineConfig fromProperties(Properties properties) {
        Settings p = new Settings(properties);
        PipelineConfig config = read(p);
        List<String> unknown = properties.stringPropertyNames().stream()
                .filter(k -> !k.startsWith("flink.") && !p.read.contains(k)).sorted().toList();
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown setting(s) " + unknown + "; the keys are in docs/operations.md");
        }
        return config;
    }

    /** Every key {@link #fromProperties} reads. */
    public static Set<String> keys() {
        Settings p = new Settings(new Properties());
        read(p);
        return Set.copyOf(p.read);
    }

    private static PipelineConfig read(Settings p) {
        PipelineConfig d = defaults();
        CollapseConfig c = d.collapse();
        return new PipelineConfig(
                p.string("kafka.bootstrap", d.kafkaBootstrap()),
                p.string("kafka.group", d.consumerGroup()),
                startingOffsets(p.string("kafka.starting-offsets", d.startingOffsets())),
                p.bool("kafka.bounded", d.bounded()),
                p.string("opensearch.url", d.openSearchUrl()),
                p.string("opensearch.index", d.index()),
                p.string("postgres.url", d.postgresUrl()),
                p.string("postgres.user", d.postgresUser()),
                p.string("postgres.password", d.postgresPassword()),
                new PayloadValidator.Limits(p.integer("limits.text-bytes", d.limits().maxTextBytes()),
                        p.integer("limits.document-bytes", d.limits().maxDocumentBytes())),
                p.integer("partition.tau", d.tau()),
                p.decimal("partition.alpha1", d.alpha1()),
                p.decimal("partition.alpha2", d.alpha2()),
                p.bool("embed.quantized", d.quantizedEmbedder()),
                p.integer("embed.cache-entries", d.embedCacheEntries()),
                p.integer("embed.batch", d.embedBatch()),
                p.duration("embed.max-delay", d.embedDelay()),
                p.integer("opensearch.bulk-size", d.bulkSize()),
                p.duration("opensearch.bulk-delay", d.bulkDelay()),
                p.duration("watermark.out-of-orderness", d.outOfOrderness()),
                p.duration("watermark.idleness", d.sourceIdleness()),
                p.duration("compaction.allowed-lateness", d.allowedLateness()),
                p.duration("compaction.inactivity", d.sessionInactivity()),
                p.duration("state.ttl", d.stateTtl()),
                p.duration("collapse.quiet-gap", d.quietGap()),
                new CollapseConfig(p.integer("collapse.window", c.window()),
                        p.decimal("collapse.recall-drop", c.recallDrop()),
                        p.decimal("collapse.entropy-drop", c.entropyDrop()),
                        p.decimal("collapse.shrink-factor", c.shrinkFactor()),
                        p.integer("collapse.merge-floor-min", c.mergeFloorMin()),
                        p.integer("collapse.churn-min-accepted", (int) c.churnMinAccepted()),
                        p.decimal("collapse.churn-flatness", c.churnFlatness()),
                        p.integer("collapse.max-generation", c.maxGeneration()),
                        p.integer("collapse.canaries", c.canaryCount()),
                        p.integer("collapse.k", c.k())),
                p.duration("checkpoint.interval", d.checkpointInterval()),
                p.integer("parallelism", d.parallelism()),
                p.string("kafka.transactional-id-prefix", d.transactionalIdPrefix()),
                p.integer("kafka.partitions", d.topicPartitions()));
    }

    /** {@code committed} (earliest when the group has none), {@code earliest}, {@code latest} or {@code timestamp:MILLIS}. */
    private static String startingOffsets(String value) {
        String v = value.trim();
        if (v.equals("committed") || v.equals("earliest") || v.equals("latest") || v.matches("timestamp:\\d+")) {
            return v;
        }
        throw new IllegalArgumentException("kafka.starting-offsets: " + value
                + " (use committed, earliest, latest or timestamp:EPOCH_MILLIS)");
    }

    /** The properties, remembering which keys were read. */
    private static final class Settings {
        private final Properties properties;
        private final Set<String> read = new HashSet<>();

        Settings(Properties properties) {
            this.properties = properties;
        }

        String string(String key, String fallback) {
            read.add(key);
            return properties.getProperty(key, fallback);
        }

        boolean bool(String key, boolean fallback) {
            return Boolean.parseBoolean(string(key, String.valueOf(fallback)).trim());
        }

        int integer(String key, int fallback) {
            return Integer.parseInt(string(key, String.valueOf(fallback)).trim());
        }

        double decimal(String key, double fallback) {
            return Double.parseDouble(string(key, String.valueOf(fallback)).trim());
        }

        /** ISO-8601 ({@code PT10M}) or a number with ms/s/m/h/d. */
        Duration duration(String key, Duration fallback) {
            String v = string(key, null);
            if (v == null) {
                return fallback;
            }
            v = v.trim();
            if (v.startsWith("P") || v.startsWith("p")) {
                return Duration.parse(v.toUpperCase());
            }
            String unit = v.replaceAll("[0-9]", "");
            long n = Long.parseLong(v.substring(0, v.length() - unit.length()));
            return switch (unit) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                case "d" -> Duration.ofDays(n);
                default -> throw new IllegalArgumentException(key + ": unknown duration " + v + " (use 500ms, 10s, 5m, 1h, 2d)");
            };
        }
    }
}
