package io.engram.jobs.documents;

import io.engram.client.RejectReason;
import io.engram.jobs.EngramMetrics;
import io.engram.jobs.PipelineConfig;
import io.engram.jobs.RecordLog;
import io.engram.jobs.embed.EmbedderFactory;
import io.engram.jobs.ingest.RejectRecord;
import io.engram.jobs.store.StoreChange;
import io.engram.model.embed.Embedder;
import io.engram.model.partition.DocumentCacheKey;
import io.engram.model.partition.DocumentNode;
import io.engram.model.partition.InvalidDocumentException;
import io.engram.model.partition.MarkdownPartitioner;
import io.engram.model.partition.PartitionConfig;
import io.engram.model.partition.PartitionedDocument;
import io.engram.model.partition.TierAssignment;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.RecordIds;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Turns versions of one document (keyed by {@link DocEvent#documentKey()}) into store changes: its chunks
 * (tier 1 and 2 rules as {@code invariant}, tier 0 as {@code lore}), then the removal of older versions' chunks.
 * Keyed state holds the live version and its cache key ({@link DocumentCacheKey}): a version whose bytes did
 * not change is not partitioned or embedded again, a version at or below the live one is a replay and is
 * dropped. A version that cannot be partitioned is rejected and the previous version stays live; one whose hard rules
 * overflow their budget is accepted with the weakest moved to the soft tier, and a warning record says how many. A deleted document loses all its chunks.
 */
public final class DocumentPartitionFunction extends KeyedProcessFunction<String, DocEvent, StoreChange> {

    private static final long serialVersionUID = 1L;
    /** The tier kept for a node that is no record of its own (a heading): nothing to delete at its position. */
    private static final int NOT_STORED = -1;

    public static final OutputTag<RejectRecord> REJECTS =
            new OutputTag<>("document-rejects", TypeInformation.of(RejectRecord.class));

    /**
     * The partitioner's budget (tau, alpha1, alpha2: docs/algorithms.md), whether the learned rule reader and the
     * list-items-by-rule reading are on, and whether the operator's metrics are registered.
     */
    public record Settings(int tau, double alpha1, double alpha2, boolean ruleReader, boolean listItemsByRule,
                           boolean metricsEnabled) implements Serializable {

        /** The pipeline's settings. */
        public static Settings of(PipelineConfig config) {
            return new Settings(config.tau(), config.alpha1(), config.alpha2(), config.ruleReader(),
                    config.listItemsByRule(), config.metricsEnabled());
        }
    }

    private final EmbedderFactory embedderFactory;
    private final Settings settings;

    private transient EngramMetrics metrics;
    private transient Embedder embedder;
    private transient MarkdownPartitioner partitioner;
    /** What the cache key hashes beside the bytes: the tokenizer and the rule readings ({@link PartitionConfig#cacheId}). */
    private transient String partitionId;
    private transient ValueState<Long> liveVersion;
    private transient ValueState<String> liveCacheKey;
    /** The tier of each chunk of the live version, by position: what a newer version deletes by id. */
    private transient ValueState<int[]> liveChunkTiers;

    /** The model's tokenizer counts the budget, so budgets match what the model sees. */
    public DocumentPartitionFunction(EmbedderFactory embedderFactory, Settings settings) {
        this.embedderFactory = embedderFactory;
        this.settings = settings;
    }

    @Override
    public void open(OpenContext context) {
        metrics = EngramMetrics.of(getRuntimeContext().getMetricGroup(), settings.metricsEnabled());
        embedder = embedderFactory.get();
        PartitionConfig config = PartitionConfig.defaults()
                .withBudget(settings.tau(), settings.alpha1(), settings.alpha2()).withTokens(embedder.tokenCounter())
                .withRuleReader(settings.ruleReader()).withListItemsByRule(settings.listItemsByRule());
        partitionId = config.cacheId();
        partitioner = new MarkdownPartitioner(config);
        liveVersion = getRuntimeContext().getState(new ValueStateDescriptor<>("live-version", Types.LONG));
        liveCacheKey = getRuntimeContext().getState(new ValueStateDescriptor<>("live-cache-key", Types.STRING));
        liveChunkTiers = getRuntimeContext().getState(
                new ValueStateDescriptor<>("live-chunk-tiers", PrimitiveArrayTypeInfo.INT_PRIMITIVE_ARRAY_TYPE_INFO));
    }

    @Override
    public void processElement(DocEvent doc, Context ctx, Collector<StoreChange> out) throws Exception {
        Long live = liveVersion.value();
        if (live != null && doc.version() <= live) {
            return; // a replay, or a version older than the live one
        }
        if (doc.deleted()) {
            retireLiveVersion(doc, live, Long.MAX_VALUE, out);
            if (live != null) {
                out.collect(new StoreChange.DocumentVersion(doc.tenantId(), doc.agentId(), doc.path(), doc.version(),
                        true, 0, doc.tsMillis()));
            }
            liveVersion.update(doc.version());
            liveCacheKey.clear();
            liveChunkTiers.clear();
            return;
        }
        byte[] raw = doc.content().getBytes(StandardCharsets.UTF_8);
        String cacheKey = DocumentCacheKey.of(raw, partitionId);
        if (cacheKey.equals(liveCacheKey.value())) {
            return; // same bytes as the live version: its chunks stand
        }
        PartitionedDocument partitioned;
        try {
            partitioned = partitioner.partition(raw);
        } catch (InvalidDocumentException e) {
            reject(ctx, doc, reasonOf(e.reason()), e.getMessage());
            return;
        }
        if (partitioned.budget().demotedHardNodes() > 0) {
            // a warning (RejectReason#warning): the version goes live
            reject(ctx, doc, RejectReason.HARD_RULES_DEMOTED, doc.path() + " v" + doc.version() + " "
                    + partitioned.budget().explain());
        }
        Double authority = "core".equals(doc.docClass()) ? 1.0 : 0.5;
        int[] tiers = new int[partitioned.nodes().size()]; // a node's index is its position in the list
        Arrays.fill(tiers, NOT_STORED);
        for (DocumentNode node : partitioned.storedNodes()) {
            tiers[node.index()] = node.tier();
            RecordType type = node.tier() == TierAssignment.LORE ? RecordType.LORE : RecordType.INVARIANT;
            out.collect(new StoreChange.Upsert(MemoryRecord.of(
                    RecordIds.chunk(doc.tenantId(), doc.agentId(), doc.path(), doc.version(), node.index()),
                    doc.tenantId(), type, node.text(), Instant.ofEpochMilli(doc.tsMillis())).tier(node.tier())
                    .authority(authority).document(doc.agentId(), doc.path(), doc.version()).position(node.index())
                    .tokens(node.tokens()).build(), null));
        }
        retireLiveVersion(doc, live, doc.version(), out);
        out.collect(new StoreChange.DocumentVersion(doc.tenantId(), doc.agentId(), doc.path(), doc.version(), false,
                partitioned.storedNodes().size(), doc.tsMillis()));
        liveVersion.update(doc.version());
        liveCacheKey.update(cacheKey);
        liveChunkTiers.update(tiers);
    }

    /**
     * Removes the live version's chunks once {@code doc} replaces it: by id, after the new chunks, so the writer
     * needs no search (and so no index refresh) to find them. A live version restored from state that kept no
     * tiers (written before they were kept) is removed by a query for every version below {@code keepVersion}.
     */
    private void retireLiveVersion(DocEvent doc, Long live, long keepVersion, Collector<StoreChange> out) throws Exception {
        if (live == null) {
            return;
        }
        int[] tiers = liveChunkTiers.value();
        if (tiers == null) {
            out.collect(new StoreChange.ReplaceDocument(doc.tenantId(), doc.agentId(), doc.path(), keepVersion,
                    doc.tsMillis()));
            return;
        }
        for (int position = 0; position < tiers.length; position++) {
            if (tiers[position] == NOT_STORED) {
                continue;
            }
            out.collect(new StoreChange.Delete(doc.tenantId(), RecordIds.chunk(doc.tenantId(), doc.agentId(), doc.path(), live,
                    position), tiers[position] == TierAssignment.LORE ? RecordType.LORE : RecordType.INVARIANT, null,
                    doc.tsMillis(), null));
        }
    }

    private static RejectReason reasonOf(InvalidDocumentException.Reason reason) {
        return switch (reason) {
            case TOO_LARGE -> RejectReason.DOCUMENT_TOO_LARGE;
            case NOT_UTF8 -> RejectReason.DOCUMENT_NOT_UTF8;
            case BINARY_CONTENT -> RejectReason.DOCUMENT_BINARY;
            case NESTING_TOO_DEEP -> RejectReason.DOCUMENT_TOO_DEEP;
        };
    }

    /** A record on the rejects topic: a rejected input, or a warning about one accepted ({@link RejectReason#warning}). */
    private void reject(Context ctx, DocEvent doc, RejectReason reason, String message) {
        metrics.counter(EngramMetrics.REJECTS, "reason", reason.code()).inc();
        RejectRecord reject = new RejectRecord(reason.code(), message, doc.tenantId(), doc.sourceTopic(), doc.partition(),
                doc.offset(), doc.original());
        RecordLog.rejected(reject);
        ctx.output(REJECTS, reject);
    }

    @Override
    public void close() {
        if (embedder != null) {
            embedder.close();
        }
    }
}
