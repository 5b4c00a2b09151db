package io.engram.service;

import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.retrieval.ContextService;
import io.engram.retrieval.HybridRetriever;
import io.engram.retrieval.Stages;
import io.engram.store.MemoryReader;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the service reads of the memory index, and nothing more: the port between the service and the store
 * ({@link RetrievalReads} over OpenSearch; the service's unit tests use an in-memory one). Every read names its
 * tenant and returns records without their vectors.
 */
interface MemoryReads extends AutoCloseable {

    /** One page of a listing, in its order, and the cursor of the next page (null after the last). */
    record Page(List<MemoryRecord> records, String nextCursor) {
    }

    /** An agent document of a tenant, as its latest version's rules and lore records hold it. */
    record Document(String agentId, String path, long version, long records) {
    }

    /** What the context path's rule cache holds now (a gauge of {@code /metrics}). */
    ContextService.CachedRules cachedRules();

    /** The context {@code request} assembles at {@code now}. */
    AssembledContext context(ContextService.Request request, Instant now, Stages stages);

    /** Hybrid search. */
    List<HybridRetriever.Result> search(HybridRetriever.Query query, Stages stages);

    /** The tenant's records of these ids that exist, in no order. */
    List<MemoryRecord> get(String tenantId, List<String> ids);

    /** {@link #list(String, Map, Set, MemoryReader.Order, int, String)} newest first. */
    default Page list(String tenantId, Map<String, Object> terms, Set<RecordType> types, int limit, String cursor) {
        return list(tenantId, terms, types, MemoryReader.Order.NEWEST_FIRST, limit, cursor);
    }

    /**
     * The tenant's records matching every term, in {@code order}; {@code cursor} is the previous page's, or null.
     *
     * @throws IllegalArgumentException when the cursor is not one this store made for that order
     */
    Page list(String tenantId, Map<String, Object> terms, Set<RecordType> types, MemoryReader.Order order, int limit,
              String cursor);

    /**
     * The tenant's {@code limit} most mentioned entities among its records matching every term, each with the
     * names beside it and its newest mentions ({@link MemoryReader#entities}).
     */
    List<MemoryReader.Entity> entities(String tenantId, Map<String, Object> terms, int limit);

    /** The tenant's agent documents, by agent and path. */
    List<Document> documents(String tenantId);

    /** A document's rules and lore records in document order, at most {@code max}; empty when there is none. */
    List<MemoryRecord> document(String tenantId, String agentId, String path, int max);

    /** How many records the tenant stores, but the summaries and windows made of them (its records quota). */
    long storedRecords(String tenantId);

    /** The embedding model of the index's vectors; what readiness asks to see that the index answers. */
    String embeddingModel();

    @Override
    void close();
}
