package io.engram.jobs;

import io.engram.client.Secrets;
import io.engram.client.Topics;
import io.engram.jobs.collapse.CollapseDetectorFunction;
import io.engram.jobs.collapse.CollapseDetectorOperator;
import io.engram.jobs.collapse.CollapseDetectorSettings;
import io.engram.jobs.changes.ChangeMessages;
import io.engram.jobs.collapse.FiredAlert;
import io.engram.jobs.collapse.MetricsJdbc;
import io.engram.jobs.collapse.MintedCanary;
import io.engram.jobs.compaction.CompactionResult;
import io.engram.jobs.compaction.CompactionStoreChanges;
import io.engram.jobs.compaction.SessionCompactionFunction;
import io.engram.jobs.compaction.SessionCompactionOperator;
import io.engram.jobs.compaction.TurnEvent;
import io.engram.jobs.documents.DocEvent;
import io.engram.jobs.documents.DocumentPartitionFunction;
import io.engram.jobs.embed.EmbeddingOperator;
import io.engram.jobs.embed.SharedEmbedder;
import io.engram.jobs.ingest.BoundedKafkaSource;
import io.engram.jobs.ingest.EndOfInputWatermark;
import io.engram.jobs.ingest.ForgetEvent;
import io.engram.jobs.ingest.Ingested;
import io.engram.jobs.ingest.PayloadDeserializer;
import io.engram.jobs.ingest.Payloads;
import io.engram.jobs.ingest.RejectRecord;
import io.engram.jobs.ingest.RouteInputs;
import io.engram.jobs.store.ForgetCompleted;
import io.engram.jobs.store.StoreChange;
import io.engram.jobs.store.StoreWriterOperator;
import io.engram.jobs.store.StoreWriterSettings;
import io.engram.jobs.windows.TurnWindowFunction;
import io.engram.model.collapse.CycleMetrics;
import io.engram.store.MemoryStore;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
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
 * inputs and the sinks, the memory store among them, are passed in; {@link #kafkaSource} and {@link #sinks} make
 * the production ones.
 */
public final class EngramPipeline {

    /**
     * Where the pipeline writes: the memory store (opened by the writer and the detector where they run), the
     * rejects and alerts topics, the metrics tables, the forgets table and the change feed.
     */
    public record Sinks(MemoryStore.Factory store, Sink<RejectRecord> rejects, Sink<FiredAlert> alerts,
                        Sink<CycleMetrics> cycleMetrics, Sink<FiredAlert> alertRows, Sink<MintedCanary> canaryRows,
                        Sink<ForgetCompleted> forgetRows, Sink<StoreChange> changes) {
    }

    /** The input's name, and the writer's: what {@code ./engram status} finds them by in Flink's REST API. */
    public static final String SOURCE_NAME = "inputs";
    public static final String WRITER_NAME = "write to OpenSearch";

    private final PipelineConfig config;

    public EngramPipeline(PipelineConfig config) {
        this.config = config;
    }

    public void build(StreamExecutionEnvironment env, Source<Ingested, ?, ?> inputs, Sinks sinks) {
        if (!env.isChainingEnabled()) {
            // the detector reads the writer's changes in its thread, and the end-of-input watermark must sit in the
            // source's chain
            throw new IllegalArgumentException("Engram's pipeline needs operator chaining: "
                    + "leave flink.pipeline.operator-chaining.enabled at true");
        }
        SharedEmbedder embedder = new SharedEmbedder(config.embeddingModel(), config.embedCacheEntries());

        // Read and validate: every record is a payload or a reject, event time from the payload; a draining
        // stop ends event time even when the source is idle.
        // A bounded run holds event time until its input ends: a replay of history is out of order by months within
        // a partition (conversation after conversation), and what a record arriving behind the watermark falls into
        // would depend on how partitions and restores interleave. A live run's watermark trails its newest records,
        // idle partitions left out (docs/algorithms.md, "Event time of a bounded run").
        WatermarkStrategy<Ingested> eventTime = config.bounded() ? WatermarkStrategy.noWatermarks()
                : WatermarkStrategy.<Ingested>forBoundedOutOfOrderness(config.outOfOrderness())
                        .withIdleness(config.sourceIdleness());
        DataStream<Ingested> read = env
                .fromSource(inputs, eventTime.withTimestampAssigner((in, kafkaTime) -> in.rejected() ? Long.MIN_VALUE
                        : in.tsMillis()), SOURCE_NAME).uid("inputs");
        SingleOutputStreamOperator<StoreChange> memories = read
                .transform("end of input", read.getType(), new EndOfInputWatermark<>()).uid("end-of-input")
                .process(new RouteInputs(config.metricsEnabled()), StoreChange.TYPE).uid("route-inputs")
                .name("validate and route");

        // Forgets: to every compaction subtask (drop what sessions hold of it) and, in order, to the tenant's writer.
        DataStream<ForgetEvent> forgets = memories.getSideOutput(RouteInputs.FORGETS);
        DataStream<StoreChange> forgetChanges = forgets.<StoreChange>map(StoreChange.Forget::of)
                .returns(StoreChange.TYPE).uid("forget-ops");

        // Turns: searchable at once, and compacted per session into summaries.
        DataStream<TurnEvent> turns = memories.getSideOutput(RouteInputs.TURNS);
        DataStream<StoreChange> turnRecords = turns.map(Payloads::turnRecord).returns(StoreChange.TYPE).uid("turn-records");
        DataStream<StoreChange> summaries = turns
                .keyBy(TurnEvent::sessionKey)
                .connect(forgets.broadcast())
                .transform("compact sessions", CompactionResult.TYPE,
                        new SessionCompactionOperator(new SessionCompactionFunction(embedder,
                                SessionCompactionFunction.Settings.of(config)))).uid("compaction")
                .process(new CompactionStoreChanges(config.metricsEnabled()), StoreChange.TYPE).uid("compaction-ops");

        // Turns: windows of consecutive turns per session, records of their own next to the turns.
        DataStream<StoreChange> windows = turns
                .keyBy(TurnEvent::sessionKey)
                .connect(forgets.broadcast(TurnWindowFunction.FORGETS))
                .process(new TurnWindowFunction(TurnWindowFunction.Settings.of(config)), StoreChange.TYPE)
                .uid("turn-windows").name("turn windows");

        // Documents: partitioned into tiered chunks per version, the previous version replaced.
        SingleOutputStreamOperator<StoreChange> chunks = memories.getSideOutput(RouteInputs.DOCS)
                .keyBy(DocEvent::documentKey)
                .process(new DocumentPartitionFunction(embedder, DocumentPartitionFunction.Settings.of(config)),
                        StoreChange.TYPE)
                .uid("partition").name("partition documents");

        // Embed in batches, write per tenant, and follow each tenant's learning store in the chained detector.
        SingleOutputStreamOperator<StoreChange> written = memories.union(turnRecords, windows, summaries, chunks, forgetChanges)
                .transform("embed", StoreChange.TYPE, new EmbeddingOperator(embedder,
                        EmbeddingOperator.Settings.of(config)))
                .uid("embed")
                .keyBy(StoreChange::tenantId)
                .transform(WRITER_NAME, StoreChange.TYPE, new StoreWriterOperator(sinks.store(),
                        StoreWriterSettings.of(config), Clock.systemUTC()))
                .uid("store-writer");
        SingleOutputStreamOperator<CycleMetrics> cycleRows = DataStreamUtils
                .reinterpretAsKeyedStream(written, StoreChange::tenantId)
                .transform("collapse detector", CollapseDetectorFunction.CYCLE_ROWS, new CollapseDetectorOperator(
                        new CollapseDetectorFunction(sinks.store(),
                                CollapseDetectorSettings.of(config))))
                .uid("collapse-detector");

        written.getSideOutput(StoreWriterOperator.FORGETS_DONE).sinkTo(sinks.forgetRows()).uid("forgets-sink")
                .name("forgets");
        written.getSideOutput(StoreWriterOperator.CHANGES).sinkTo(sinks.changes()).uid("changes-sink")
                .name(Topics.CHANGES);
        cycleRows.sinkTo(sinks.cycleMetrics()).uid("cycle-metrics-sink").name("cycle_metrics");
        DataStream<FiredAlert> alerts = cycleRows.getSideOutput(CollapseDetectorFunction.ALERTS);
        alerts.sinkTo(sinks.alertRows()).uid("alert-rows-sink").name("collapse_alerts");
        alerts.sinkTo(sinks.alerts()).uid("alerts-sink").name(Topics.ALERTS);
        cycleRows.getSideOutput(CollapseDetectorFunction.CANARIES).sinkTo(sinks.canaryRows())
                .uid("canary-sink").name("canary_queries");
        memories.getSideOutput(RouteInputs.REJECTS)
                .union(chunks.getSideOutput(DocumentPartitionFunction.REJECTS))
                .sinkTo(sinks.rejects()).uid("rejects-sink").name(Topics.REJECTS);
    }

    /**
     * The input topics from {@code kafka.starting-offsets} (default: the committed offsets, earliest the first time);
     * with {@code kafka.bounded}, to the end offsets at the start, also when restored ({@link BoundedKafkaSource}).
     */
    public static Source<Ingested, ?, ?> kafkaSource(PipelineConfig config) {
        var builder = KafkaSource.<Ingested>builder()
                .setProperties(config.kafka().config())
                .setTopics(Topics.INPUTS)
                .setGroupId(config.consumerGroup())
                .setStartingOffsets(startingOffsets(config.startingOffsets()))
                .setDeserializer(new PayloadDeserializer(config.limits()))
                .setProperty("isolation.level", "read_committed");
        if (config.bounded()) {
            return new BoundedKafkaSource<>(builder.setBounded(OffsetsInitializer.latest()).build());
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

    /**
     * The production sinks: OpenSearch at {@code opensearch.url}, rejects, alerts and the change feed to Kafka in
     * transactions, metrics to PostgreSQL as idempotent upserts.
     */
    public static Sinks sinks(PipelineConfig config) {
        JdbcConnectionOptions pg = MetricsJdbc.connection(config.postgresUrl(), config.postgresUser(),
                Secrets.resolve(config.postgresPassword()));
        KafkaSink<RejectRecord> rejects = KafkaSink.<RejectRecord>builder()
                .setKafkaProducerConfig(config.kafka().config())
                .setRecordSerializer((reject, context, ts) -> new ProducerRecord<>(Topics.REJECTS, reject.key(),
                        reject.toJsonBytes()))
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix(config.transactionalIdPrefix() + "-rejects")
                .setProperty("transaction.timeout.ms", "600000")
                .setProperty("max.request.size", String.valueOf(Topics.LARGE_RECORD_BYTES))
                .build();
        KafkaSink<FiredAlert> alerts = KafkaSink.<FiredAlert>builder()
                .setKafkaProducerConfig(config.kafka().config())
                // keyed by tenant, so a tenant's alerts stay in order
                .setRecordSerializer((alert, context, ts) -> new ProducerRecord<>(Topics.ALERTS,
                        alert.tenantId().getBytes(StandardCharsets.UTF_8), alert.toAlertJson()))
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix(config.transactionalIdPrefix() + "-alerts")
                .setProperty("transaction.timeout.ms", "600000")
                .build();
        KafkaSink<StoreChange> changes = KafkaSink.<StoreChange>builder()
                .setKafkaProducerConfig(config.kafka().config())
                // keyed by tenant, so a tenant's changes stay in the order the writer made them
                .setRecordSerializer((change, context, ts) -> new ProducerRecord<>(Topics.CHANGES,
                        change.tenantId().getBytes(StandardCharsets.UTF_8), ChangeMessages.json(change)))
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix(config.transactionalIdPrefix() + "-changes")
                .setProperty("transaction.timeout.ms", "600000")
                .setProperty("max.request.size", String.valueOf(Topics.LARGE_RECORD_BYTES))
                .build();
        return new Sinks(OpenSearchMemoryStore.at(config.openSearch(), config.index(), RetryPolicy.DEFAULT,
                config.indexEntities()), rejects,
                alerts, MetricsJdbc.cycleMetrics(pg), MetricsJdbc.alerts(pg), MetricsJdbc.canaries(pg),
                MetricsJdbc.forgets(pg), changes);
    }
}
