package io.engram.jobs;

import io.engram.client.Topics;
import io.engram.jobs.collapse.CollapseDetectorFunction;
import io.engram.jobs.collapse.CollapseDetectorOperator;
import io.engram.jobs.collapse.MetricsJdbc;
import io.engram.jobs.compaction.CompactionResult;
import io.engram.jobs.compaction.CompactionStoreOps;
import io.engram.jobs.compaction.SessionCompactionFunction;
import io.engram.jobs.compaction.SessionCompactionOperator;
import io.engram.jobs.compaction.TurnEvent;
import io.engram.jobs.documents.DocEvent;
import io.engram.jobs.documents.DocumentPartitionFunction;
import io.engram.jobs.embed.EmbeddingOperator;
import io.engram.jobs.embed.SharedEmbedder;
import io.engram.jobs.ingest.EndOfInputWatermark;
import io.engram.jobs.ingest.Ingested;
import io.engram.jobs.ingest.Payloads;
import io.engram.jobs.ingest.PayloadDeserializer;
import io.engram.jobs.ingest.RejectRecord;
import io.engram.jobs.ingest.RouteInputs;
import io.engram.jobs.store.RetryPolicy;
import io.engram.jobs.store.StoreOp;
import io.engram.jobs.store.StoreWriterOperator;
import io.engram.model.embed.OnnxEmbedder;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.jdbc.JdbcConnectionOptions;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The Engram pipeline (docs/architecture.md, "The pipeline"): one job for the three inputs, so documents, turns and memories
 * share one embedding capacity and one writer per tenant (docs/architecture.md explains the choice). The
 * inputs and the non-OpenSearch sinks are passed in; {@link #kafkaSource} and {@link #sinks} make the
 * production ones.
 */
public final class EngramPipeline {

    /** Where the pipeline writes besides OpenSearch. */
    public record Sinks(Sink<RejectRecord> rejects, Sink<String> alerts, Sink<String> cycleMetrics,
                        Sink<String> alertRows, Sink<String> canaryRows) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final PipelineConfig config;

    public EngramPipeline(PipelineConfig config) {
        this.config = config;
    }

    public void build(StreamExecutionEnvironment env, Source<Ingested, ?, ?> inputs, Sinks sinks) {
        SharedEmbedder embedder = SharedEmbedder.miniLm(config.quantizedEmbedder(), config.embedCacheEntries());
        TypeInformation<StoreOp> storeOps = TypeInformation.of(StoreOp.class);

        // Read and validate: every record is a payload or a reject, event time from the payload; a draining
        // stop ends event time even when the source is idle.
        DataStream<Ingested> read = env
                .fromSource(inputs, WatermarkStrategy.<Ingested>forBoundedOutOfOrderness(config.outOfOrderness())
                        .withTimestampAssigner((in, kafkaTime) -> in.rejected() ? Long.MIN_VALUE : in.tsMillis())
                        .withIdleness(config.sourceIdleness()), "inputs").uid("inputs");
        SingleOutputStreamOperator<StoreOp> memories = read
                .transform("end of input", read.getType(), new EndOfInputWatermark<>()).uid("end-of-input")
                .process(new RouteInputs()).uid("route-inputs").name("validate and route");

        // Turns: searchable at once, and compacted per session into summaries.
        DataStream<TurnEvent> turns = memories.getSideOutput(RouteInputs.TURNS);
        DataStream<StoreOp> turnRecords = turns.map(Payloads::turnRecord).returns(storeOps).uid("turn-records");
        DataStream<StoreOp> summaries = turns
                .keyBy(TurnEvent::sessionKey)
                .transform("compact sessions", TypeInformation.of(CompactionResult.class),
                        new SessionCompactionOperator(new SessionCompactionFunction(embedder, config.allowedLateness(),
                                config.sessionInactivity(), config.stateTtl()))).uid("compaction")
                .process(new CompactionStoreOps()).uid("compaction-ops");

        // Documents: partitioned into tiered chunks per version, the previous version replaced.
        SingleOutputStreamOperator<StoreOp> chunks = memories.getSideOutput(RouteInputs.DOCS)
                .keyBy(DocEvent::documentKey)
                .process(new DocumentPartitionFunction(embedder, config.tau(), config.alpha1(), config.alpha2()))
                .uid("partition").name("partition documents");

        // Embed in batches, write per tenant, and follow each tenant's learning store in the chained detector.
        SingleOutputStreamOperator<StoreOp> written = memories.union(turnRecords, summaries, chunks)
                .transform("embed", storeOps, new EmbeddingOperator(embedder, config.embedBatch(), config.embedDelay()))
                .uid("embed")
                .keyBy(StoreOp::tenantId)
                .transform("write to OpenSearch", storeOps, new StoreWriterOperator(config.openSearchUrl(),
                        config.index(), OnnxEmbedder.MINILM_DIMENSION, RetryPolicy.DEFAULT, config.bulkSize(), config.bulkDelay(), config.quietGap()))
                .uid("store-writer");
        SingleOutputStreamOperator<String> cycleRows = DataStreamUtils
                .reinterpretAsKeyedStream(written, StoreOp::tenantId)
                .transform("collapse detector", Types.STRING, new CollapseDetectorOperator(new CollapseDetectorFunction(
                        config.openSearchUrl(), config.index(), config.collapse(), config.quietGap())))
                .uid("collapse-detector");

        cycleRows.sinkTo(sinks.cycleMetrics()).uid("cycle-metrics-sink").name("cycle_metrics");
        DataStream<String> alerts = cycleRows.getSideOutput(CollapseDetectorFunction.ALERTS);
        alerts.sinkTo(sinks.alertRows()).uid("alert-rows-sink").name("collapse_alerts");
        alerts.sinkTo(sinks.alerts()).uid("alerts-sink").name(Topics.ALERTS);
        cycleRows.getSideOutput(CollapseDetectorFunction.CANARIES).sinkTo(sinks.canaryRows())
                .uid("canary-sink").name("canary_queries");
        memories.getSideOutput(RouteInputs.REJECTS)
                .union(chunks.getSideOutput(DocumentPartitionFunction.REJECTS))
                .sinkTo(sinks.rejects()).uid("rejects-sink").name(Topics.REJECTS);
    }

    /** The three input topics from {@code kafka.starting-offsets} (default: the committed offsets, earliest the first time). */
    public static KafkaSource<Ingested> kafkaSource(PipelineConfig config) {
        var builder = KafkaSource.<Ingested>builder()
                .setBootstrapServers(config.kafkaBootstrap())
                .setTopics(Topics.INPUTS)
                .setGroupId(config.consumerGroup())
                .setStartingOffsets(startingOffsets(config.startingOffsets()))
                .setDeserializer(new PayloadDeserializer(config.limits()))
                .setProperty("isolation.level", "read_committed");
        if (config.bounded()) {
            builder.setBounded(OffsetsInitializer.latest());
        }
        return builder.build();
    }

    private static OffsetsInitializer startingOffsets(String setting) {
        return switch (setting) {
            case "committed" -> OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST);
            case "earliest" -> OffsetsInitializer.earliest();
            case "latest" -> OffsetsInitializer.latest();
            default -> OffsetsInitializer.timestamp(Long.parseLong(setting.substring("timestamp:".length())));
        };
    }

    /** Rejects and alerts to Kafka in transactions; metrics to PostgreSQL as idempotent upserts. */
    public static Sinks sinks(PipelineConfig config) {
        JdbcConnectionOptions pg = MetricsJdbc.connection(config.postgresUrl(), config.postgresUser(),
                config.postgresPassword());
        KafkaSink<RejectRecord> rejects = KafkaSink.<RejectRecord>builder()
                .setBootstrapServers(config.kafkaBootstrap())
                .setRecordSerializer((reject, context, ts) -> new ProducerRecord<>(Topics.REJECTS, reject.key(),
                        reject.toJsonBytes()))
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix(config.transactionalIdPrefix() + "-rejects")
                .setProperty("transaction.timeout.ms", "600000")
                .setProperty("max.request.size", String.valueOf(Topics.LARGE_RECORD_BYTES))
                .build();
        KafkaSink<String> alerts = KafkaSink.<String>builder()
                .setBootstrapServers(config.kafkaBootstrap())
                .setRecordSerializer((alert, context, ts) -> new ProducerRecord<>(Topics.ALERTS, tenantOf(alert),
                        alert.getBytes(StandardCharsets.UTF_8)))
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix(config.transactionalIdPrefix() + "-alerts")
                .setProperty("transaction.timeout.ms", "600000")
                .build();
        return new Sinks(rejects, alerts, MetricsJdbc.cycleMetrics(pg), MetricsJdbc.alerts(pg), MetricsJdbc.canaries(pg));
    }

    /** An alert's Kafka key: its tenant, so a tenant's alerts stay in order. */
    private static byte[] tenantOf(String alertJson) {
        try {
            return JSON.readTree(alertJson).get("tenant_id").asText().getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
