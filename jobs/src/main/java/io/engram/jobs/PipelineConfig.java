package io.engram.jobs;

import io.engram.client.KafkaClients;
import io.engram.client.PayloadValidator;
import io.engram.model.collapse.CollapseConfig;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.partition.PartitionConfig;
import io.engram.model.partition.TierBudget;
import io.engram.jobs.windows.WindowVectors;
import io.engram.model.retrieval.TurnWindows;
import io.engram.store.MemoryIndexTemplate;
import io.engram.store.OpenSearchConnection;
import io.engram.store.VectorEncoding;
import java.io.Serializable;
import java.time.Duration;
import io.engram.model.facts.FactPolicy;
import io.engram.model.facts.Retention;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Everything the pipeline can be told, with the defaults of the embedded product. {@link #fromProperties}
 * reads the keys documented in docs/operations.md (e.g. {@code kafka.bootstrap}, {@code opensearch.url},
 * {@code postgres.url}); a key not given keeps its default.
 */
public record PipelineConfig(String kafkaBootstrap, Map<String, String> kafkaProperties, String consumerGroup, String startingOffsets, boolean bounded,
                             OpenSearchConnection openSearch,
                             String index, String postgresUrl, String postgresUser, String postgresPassword,
                             PayloadValidator.Limits limits, int tau, double alpha1, double alpha2,
                             boolean ruleReader, boolean listItemsByRule,
                             EmbeddingModel embeddingModel, int embedCacheEntries, int embedBatch, Duration embedDelay,
                             int bulkSize, Duration bulkDelay, Duration outOfOrderness, Duration sourceIdleness,
                             Duration allowedLateness, Duration sessionInactivity, Duration stateTtl, TurnWindows turnWindows,
                             WindowVectors windowVectors,
                             Duration quietGap, CollapseConfig collapse, Duration checkpointInterval, int parallelism,
                             String transactionalIdPrefix, int topicPartitions, String stateDir,
                             boolean metricsEnabled, FactPolicy facts, boolean indexEntities,
                             VectorEncoding vectorEncoding) implements Serializable {

    private static final Pattern RETENTION_KEY = Pattern.compile("retention\\.(?:([a-z0-9][a-z0-9_-]{0,62})\\.)?"
            + "(turns|summaries|memories)");



    /** How the job's Kafka clients (source, sinks, setup) reach the cluster. */
    public KafkaClients kafka() {
        return new KafkaClients(kafkaBootstrap, kafkaProperties);
    }

    /** The embedded product's settings: every key at its default. */
    public static PipelineConfig defaults() {
        return read(new Settings(new Properties()));
    }

    /**
     * Reads the settings; a key that is neither one of {@link #keys()} nor a {@code flink.*}, {@code service.*}
     * (the memory service's) or {@code logging.*} (the process's) key is refused
     * (a misspelt key would otherwise silently keep its default).
     */
    public static PipelineConfig fromProperties(Properties properties) {
        Settings p = new Settings(properties);
        PipelineConfig config = read(p);
        List<String> unknown = properties.stringPropertyNames().stream()
                .filter(k -> !k.startsWith("flink.") && !k.startsWith("service.") && !k.startsWith("logging.")
                        && !k.startsWith(KafkaClients.PREFIX)
                        && !p.read.contains(k)).sorted().toList();
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

    /** Each setting once: its key, its default and what it becomes (the keys are in docs/operations.md). */
    private static PipelineConfig read(Settings p) {
        return new PipelineConfig(
                p.string("kafka.bootstrap", "127.0.0.1:9092"),
                KafkaClients.propertiesIn(p.properties),
                p.string("kafka.group", "engram-pipeline"),
                startingOffsets(p.string("kafka.starting-offsets", "committed")),
                p.bool("kafka.bounded", false),
                OpenSearchConnection.read(p::string),
                p.string("opensearch.index", MemoryIndexTemplate.INDEX),
                p.string("postgres.url", "jdbc:postgresql://127.0.0.1:5432/engram"),
                p.string("postgres.user", "postgres"),
                p.string("postgres.password", ""),
                new PayloadValidator.Limits(p.integer("limits.text-bytes", PayloadValidator.Limits.DEFAULT.maxTextBytes()),
                        p.integer("limits.document-bytes", PayloadValidator.Limits.DEFAULT.maxDocumentBytes())),
                p.integer("partition.tau", PartitionConfig.DEFAULT_TAU),
                p.decimal("partition.alpha1", TierBudget.DEFAULT_ALPHA1),
                p.decimal("partition.alpha2", TierBudget.DEFAULT_ALPHA2),
                p.bool("partition.rule-reader", false),
                p.bool("partition.list-items-by-rule", true),
                EmbeddingModel.ofId(p.string("embed.model", EmbeddingModel.BGE_SMALL_EN_V15_Q.id())),
                p.integer("embed.cache-entries", 100_000),
                p.integer("embed.batch", 32),
                p.duration("embed.max-delay", Duration.ofMillis(20)),
                p.integer("opensearch.bulk-size", 500),
                p.duration("opensearch.bulk-delay", Duration.ofMillis(50)),
                p.duration("watermark.out-of-orderness", Duration.ofSeconds(5)),
                p.duration("watermark.idleness", Duration.ofSeconds(10)),
                p.duration("compaction.allowed-lateness", Duration.ofSeconds(30)),
                p.duration("compaction.inactivity", Duration.ofMinutes(30)),
                p.duration("state.ttl", Duration.ofDays(30)),
                new TurnWindows(p.integer("windows.size", TurnWindows.DEFAULT.size()),
                        p.integer("windows.stride", TurnWindows.DEFAULT.stride())),
                WindowVectors.ofLabel(p.string("windows.vectors", WindowVectors.TURNS.label())),
                p.duration("collapse.quiet-gap", Duration.ofMinutes(10)),
                CollapseConfig.read(p::string),
                p.duration("checkpoint.interval", Duration.ofSeconds(10)),
                p.integer("parallelism", 0), // 0: the submission's or the cluster's
                p.string("kafka.transactional-id-prefix", "engram"),
                p.integer("kafka.partitions", 2),
                p.string("state.dir", ""), // empty: ./engram run's per-user default
                p.bool("metrics.enabled", true),
                new FactPolicy(p.bool("memories.supersession", true), retention(p)),
                p.bool("opensearch.entities", true),
                VectorEncoding.of(p.string("opensearch.vector-encoding", VectorEncoding.DEFAULT.id())));
    }

    /**
     * {@code retention.turns}, {@code retention.summaries}, {@code retention.memories} (every tenant's) and
     * {@code retention.TENANT.turns} etc. (one tenant's, over every tenant's): each a maximum age; absent, kept for ever.
     */
    private static Map<String, Retention> retention(Settings p) {
        Map<String, Map<String, Duration>> ages = new TreeMap<>();
        for (String key : p.properties.stringPropertyNames()) {
            Matcher m = RETENTION_KEY.matcher(key);
            if (m.matches()) {
                ages.computeIfAbsent(m.group(1) == null ? FactPolicy.EVERY_TENANT : m.group(1), t -> new TreeMap<>())
                        .put(m.group(2), p.duration(key, null));
            }
        }
        Map<String, Retention> retention = new TreeMap<>();
        Map<String, Duration> every = ages.getOrDefault(FactPolicy.EVERY_TENANT, Map.of());
        ages.forEach((tenant, byType) -> retention.put(tenant, new Retention(
                byType.getOrDefault("turns", every.get("turns")), byType.getOrDefault("summaries", every.get("summaries")),
                byType.getOrDefault("memories", every.get("memories")))));
        return retention;
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
