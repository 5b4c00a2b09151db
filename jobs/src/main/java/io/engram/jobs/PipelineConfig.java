package io.engram.jobs;

import io.engram.client.PayloadValidator;
import io.engram.model.collapse.CollapseConfig;
import io.engram.model.partition.PartitionConfig;
import io.engram.model.partition.TierBudget;
import java.io.Serializable;
import java.time.Duration;
import java.util.Properties;

/**
 * Everything the pipeline can be told, with the defaults of the embedded product. {@link #fromProperties}
 * reads the keys documented in docs/operations.md (e.g. {@code kafka.bootstrap}, {@code opensearch.url},
 * {@code postgres.url}); a key not given keeps its default.
 */
public record PipelineConfig(String kafkaBootstrap, String consumerGroup, boolean bounded, String openSearchUrl,
                             String index, String postgresUrl, String postgresUser, String postgresPassword,
                             PayloadValidator.Limits limits, int tau, double alpha1, double alpha2,
                             boolean quantizedEmbedder, int embedCacheEntries, int embedBatch, Duration embedDelay,
                             int bulkSize, Duration bulkDelay, Duration outOfOrderness, Duration sourceIdleness,
                             Duration allowedLateness, Duration sessionInactivity, Duration stateTtl,
                             Duration quietGap, CollapseConfig collapse, Duration checkpointInterval, int parallelism,
                             String transactionalIdPrefix) implements Serializable {

    public static PipelineConfig defaults() {
        return new PipelineConfig("127.0.0.1:9092", "engram-pipeline", false, "http://127.0.0.1:9200",
                "engram-memories-v1", "jdbc:postgresql://127.0.0.1:5432/engram", "postgres", "",
                PayloadValidator.Limits.DEFAULT, PartitionConfig.DEFAULT_TAU, TierBudget.DEFAULT_ALPHA1,
                TierBudget.DEFAULT_ALPHA2, false, 100_000, 32, Duration.ofMillis(50), 500, Duration.ofMillis(200),
                Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofMinutes(30),
                Duration.ofDays(30), Duration.ofMinutes(10), CollapseConfig.DEFAULT, Duration.ofSeconds(10), 1,
                "engram");
    }

    public static PipelineConfig fromProperties(Properties p) {
        PipelineConfig d = defaults();
        CollapseConfig c = d.collapse();
        return new PipelineConfig(
                p.getProperty("kafka.bootstrap", d.kafkaBootstrap()),
                p.getProperty("kafka.group", d.consumerGroup()),
                Boolean.parseBoolean(p.getProperty("kafka.bounded", String.valueOf(d.bounded()))),
                p.getProperty("opensearch.url", d.openSearchUrl()),
                p.getProperty("opensearch.index", d.index()),
                p.getProperty("postgres.url", d.postgresUrl()),
                p.getProperty("postgres.user", d.postgresUser()),
                p.getProperty("postgres.password", d.postgresPassword()),
                new PayloadValidator.Limits(integer(p, "limits.text-bytes", d.limits().maxTextBytes()),
                        integer(p, "limits.document-bytes", d.limits().maxDocumentBytes())),
                integer(p, "partition.tau", d.tau()),
                decimal(p, "partition.alpha1", d.alpha1()),
                decimal(p, "partition.alpha2", d.alpha2()),
                Boolean.parseBoolean(p.getProperty("embed.quantized", String.valueOf(d.quantizedEmbedder()))),
                integer(p, "embed.cache-entries", d.embedCacheEntries()),
                integer(p, "embed.batch", d.embedBatch()),
                duration(p, "embed.max-delay", d.embedDelay()),
                integer(p, "opensearch.bulk-size", d.bulkSize()),
                duration(p, "opensearch.bulk-delay", d.bulkDelay()),
                duration(p, "watermark.out-of-orderness", d.outOfOrderness()),
                duration(p, "watermark.idleness", d.sourceIdleness()),
                duration(p, "compaction.allowed-lateness", d.allowedLateness()),
                duration(p, "compaction.inactivity", d.sessionInactivity()),
                duration(p, "state.ttl", d.stateTtl()),
                duration(p, "collapse.quiet-gap", d.quietGap()),
                new CollapseConfig(integer(p, "collapse.window", c.window()),
                        decimal(p, "collapse.recall-drop", c.recallDrop()),
                        decimal(p, "collapse.entropy-drop", c.entropyDrop()),
                        decimal(p, "collapse.shrink-factor", c.shrinkFactor()),
                        integer(p, "collapse.merge-floor-min", c.mergeFloorMin()),
                        integer(p, "collapse.churn-min-accepted", (int) c.churnMinAccepted()),
                        decimal(p, "collapse.churn-flatness", c.churnFlatness()),
                        integer(p, "collapse.max-generation", c.maxGeneration()),
                        integer(p, "collapse.canaries", c.canaryCount()),
                        integer(p, "collapse.k", c.k())),
                duration(p, "checkpoint.interval", d.checkpointInterval()),
                integer(p, "parallelism", d.parallelism()),
                p.getProperty("kafka.transactional-id-prefix", d.transactionalIdPrefix()));
    }

    private static int integer(Properties p, String key, int fallback) {
        return Integer.parseInt(p.getProperty(key, String.valueOf(fallback)).trim());
    }

    private static double decimal(Properties p, String key, double fallback) {
        return Double.parseDouble(p.getProperty(key, String.valueOf(fallback)).trim());
    }

    /** ISO-8601 ({@code PT10M}) or a number with ms/s/m/h/d. */
    private static Duration duration(Properties p, String key, Duration fallback) {
        String v = p.getProperty(key);
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
