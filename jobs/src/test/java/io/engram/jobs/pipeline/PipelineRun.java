package io.engram.jobs.pipeline;

import io.engram.client.TopicReader;
import io.engram.client.Topics;
import io.engram.jobs.EngramJob;
import io.engram.jobs.EngramPipeline;
import io.engram.jobs.PipelineConfig;
import io.engram.jobs.ingest.Ingested;
import io.engram.jobs.ingest.PayloadDeserializer;
import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedPostgreSql;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Runs the real pipeline on a local MiniCluster against the embedded services, over exactly the input records
 * a test produced: the source starts at the offsets taken before producing and stops at the end offsets when
 * the job starts, so tests sharing the broker do not read each other's records.
 */
final class PipelineRun {

    private PipelineRun() {
    }

    static PipelineConfig config(EmbeddedKafka kafka, String openSearchUrl, EmbeddedPostgreSql postgres, String index,
                                 String name) {
        Properties p = new Properties();
        p.setProperty("kafka.bootstrap", kafka.bootstrapServers());
        p.setProperty("kafka.group", name);
        p.setProperty("kafka.bounded", "true");
        p.setProperty("kafka.transactional-id-prefix", name);
        p.setProperty("opensearch.url", openSearchUrl);
        p.setProperty("opensearch.index", index);
        p.setProperty("postgres.url", postgres.jdbcUrl());
        p.setProperty("postgres.user", EmbeddedPostgreSql.USER);
        p.setProperty("checkpoint.interval", "300ms");
        p.setProperty("parallelism", "1");
        return PipelineConfig.fromProperties(p);
    }

    /** The end offsets of the input topics now: where a test's records will start. */
    static Map<TopicPartition, Long> inputOffsets(EmbeddedKafka kafka) throws Exception {
        Topics.create(io.engram.client.KafkaClients.at(kafka.bootstrapServers()), 2);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            Map<TopicPartition, OffsetSpec> request = new HashMap<>();
            for (var description : admin.describeTopics(Topics.INPUTS).allTopicNames().get(30, TimeUnit.SECONDS).values()) {
                description.partitions().forEach(p -> request.put(new TopicPartition(description.name(), p.partition()),
                        OffsetSpec.latest()));
            }
            Map<TopicPartition, Long> offsets = new HashMap<>();
            admin.listOffsets(request).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> offsets.put(tp, info.offset()));
            return offsets;
        }
    }

    static KafkaSource<Ingested> source(PipelineConfig config, Map<TopicPartition, Long> from) {
        return KafkaSource.<Ingested>builder()
                .setProperties(config.kafka().config())
                .setTopics(Topics.INPUTS)
                .setGroupId(config.consumerGroup())
                .setStartingOffsets(OffsetsInitializer.offsets(from))
                .setBounded(OffsetsInitializer.latest())
                .setDeserializer(new PayloadDeserializer(config.limits()))
                .build();
    }

    /** Runs the pipeline to the end of the input, allowing {@code restarts} (with 0, any restart fails the run). */
    static void run(PipelineConfig config, KafkaSource<Ingested> source, EngramPipeline.Sinks sinks, int restarts)
            throws Exception {
        run(config, source, sinks, restarts, new Configuration());
    }

    /** {@link #run}, with more Flink settings (a metrics reporter). */
    static void run(PipelineConfig config, KafkaSource<Ingested> source, EngramPipeline.Sinks sinks, int restarts,
                    Configuration more) throws Exception {
        Properties flink = new Properties(); // a bug must fail the test, not restart for ever
        flink.setProperty("flink.restart-strategy.type", "fixed-delay");
        flink.setProperty("flink.restart-strategy.fixed-delay.attempts", String.valueOf(restarts));
        flink.setProperty("flink.restart-strategy.fixed-delay.delay", "1 s");
        Configuration settings = EngramJob.flinkConfiguration(flink, config);
        settings.addAll(more);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(settings);
        new EngramPipeline(config).build(env, source, sinks);
        env.execute("engram-test");
    }

    /** Every committed record of a topic from the beginning. */
    static List<ConsumerRecord<byte[], byte[]>> readAll(EmbeddedKafka kafka, String topic) {
        return TopicReader.readAll(io.engram.client.KafkaClients.at(kafka.bootstrapServers()), topic);
    }
}
