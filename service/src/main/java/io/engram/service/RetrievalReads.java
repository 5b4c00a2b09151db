package io.engram.service;

import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.retrieval.ContextService;
import io.engram.retrieval.HybridRetriever;
import io.engram.retrieval.Retrieval;
import io.engram.retrieval.Stages;
import io.engram.store.MemoryReader;
import io.engram.store.MemoryStore;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/** {@link MemoryReads} over the store's read side ({@link Retrieval}: OpenSearch, the query embedder, the ranking). */
final class RetrievalReads implements MemoryReads {

    /** What an entity of {@code GET /v1/entities} brings: the names most often beside it, its newest mentions. */
    private static final int CO_MENTIONS = 5;
    private static final int MENTIONS = 3;

    private final Retrieval retrieval;

    RetrievalReads(Retrieval retrieval) {
        this.retrieval = retrieval;
    }

    @Override
    public ContextService.CachedRules cachedRules() {
        return retrieval.context().cachedRules();
    }

    @Override
    public AssembledContext context(ContextService.Request request, Instant now, Stages stages) {
        return retrieval.context().assemble(request, now, stages);
    }

    @Override
    public List<HybridRetriever.Result> search(HybridRetriever.Query query, Stages stages) {
        return retrieval.retriever().search(query, stages);
    }

    @Override
    public List<MemoryRecord> get(String tenantId, List<String> ids) {
        return retrieval.store().get(tenantId, ids);
    }

    @Override
    public Page list(String tenantId, Map<String, Object> terms, Set<RecordType> types, MemoryReader.Order order,
                     int limit, String cursor) {
        MemoryStore.Page page = retrieval.store().list(tenantId, terms, types, order, limit, cursor);
        return new Page(page.records(), page.nextCursor());
    }

    @Override
    public List<MemoryReader.Entity> entities(String tenantId, Map<String, Object> terms, int limit) {
        return retrieval.store().entities(tenantId, terms, limit, CO_MENTIONS, MENTIONS);
    }

    @Override
    public List<Document> documents(String tenantId) {
        MemoryStore.ReadBatch reads = retrieval.store().reads(tenantId);
        Supplier<List<MemoryStore.Document>> documents = reads.documents();
        reads.run();
        return documents.get().stream().map(d -> new Document(d.agentId(), d.path(), d.version(), d.records())).toList();
    }

    @Override
    public List<MemoryRecord> document(String tenantId, String agentId, String path, int max) {
        return retrieval.store().find(tenantId, Map.of("agent_id", agentId, "doc_path", path),
                EnumSet.of(RecordType.INVARIANT, RecordType.LORE), max, "position", true);
    }

    @Override
    public long storedRecords(String tenantId) {
        MemoryStore.ReadBatch reads = retrieval.store().reads(tenantId);
        Supplier<MemoryStore.Stamp> stamp = reads.stamp(Map.of(),
                EnumSet.complementOf(EnumSet.of(RecordType.SUMMARY, RecordType.WINDOW)));
        reads.run();
        return stamp.get().records();
    }

    @Override
    public String embeddingModel() {
        return retrieval.store().embeddingModel();
    }

    @Override
    public void close() {
        retrieval.close();
    }
}
