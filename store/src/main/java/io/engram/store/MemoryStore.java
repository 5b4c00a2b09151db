package io.engram.store;

import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The memory index as the job's operators and the read path use it. Every read and write names its tenant;
 * there is no method without one. Operators receive a serializable {@link Factory} and open the store on the
 * task manager, so what reaches them is a store, not an address (OpenSearchMemoryStore is the implementation).
 */
public interface MemoryStore extends AutoCloseable {

    /** Opens a store where it runs: what an operator holds, and serializes with the job graph. */
    interface Factory extends Serializable {
        MemoryStore open();
    }

    /** What a hit carries besides the record. */
    record ScoredRecord(MemoryRecord record, double score) {
    }

    /** One page of a listing, newest first, and the cursor of the next page (null after the last). */
    record Page(List<MemoryRecord> records, String nextCursor) {
    }

    /**
     * A stamp of a set of records that changes when one of them is added, removed, or replaced by another
     * document version or tier: their count and the sums of {@code doc_version}, {@code tier}, {@code position} and
     * {@code tokens}. What a cache of a tenant's rules is keyed by.
     */
    record Stamp(long records, double versions, double tiers, double positions, double tokens) {
    }

    /** An agent document of a tenant, as its partitioned records (rules and lore) hold it: its latest version. */
    record Document(String agentId, String path, long version, long records) {
    }

    /**
     * Reads of one tenant queued and sent in one round trip ({@code _msearch}). Each method queues a search and
     * returns the holder of its answer, readable once {@link #run()} has returned. Term values that are
     * collections match any of their elements.
     */
    interface ReadBatch {

        /** {@link MemoryStore#bm25}, each hit with its vector (the read path scores its cosine). */
        Supplier<List<ScoredRecord>> bm25(String query, int k, Set<RecordType> types);

        /** {@link MemoryStore#knn}: hits scored by their cosine similarity to {@code vector}, without vectors. */
        Supplier<List<ScoredRecord>> knn(float[] vector, int k, Set<RecordType> types);

        /** {@link MemoryStore#find}, without vectors. */
        Supplier<List<MemoryRecord>> find(Map<String, Object> terms, Set<RecordType> types, int size, String sortField,
                                          boolean ascending);

        /** The {@link Stamp} of the records matching every term. */
        Supplier<Stamp> stamp(Map<String, Object> terms, Set<RecordType> types);

        /** The tenant's agent documents (at most 1,000 agents of 1,000 documents each), by agent and path. */
        Supplier<List<Document>> documents();

        /** Sends every queued search at once; a failed search fails the batch. */
        void run();
    }

    /**
     * Installs the index template for vectors of {@code dimension} and creates the index when absent, recording
     * which embedding model made its vectors; refuses an existing index whose vectors another model made (one
     * index never mixes models: their vectors are not comparable).
     */
    void ensureIndex(String embeddingModel, int dimension);

    /**
     * The embedding model whose vectors the index holds, so the read side embeds queries with the same one;
     * {@link MemoryIndexTemplate#UNRECORDED_MODEL} for an index created before the model was recorded.
     */
    String embeddingModel();

    /**
     * Indexes the records (insert or overwrite by id). Retries, with backoff, the whole request on connection
     * loss and on 429/502/503/504, and the items OpenSearch answered so for; a request refused otherwise (401,
     * 400, …), items refused for good (a mapping error) and items still failing after the retry bound end in a
     * {@link StoreWriteException}. Anything else thrown is a bug and propagates at once.
     */
    void upsert(List<MemoryRecord> records);

    /**
     * What writing cost since this store opened: bulk requests sent again (after a connection loss or a
     * 429/502/503/504 answer, for the request or some of its items) and documents that ended in a
     * {@link StoreWriteException}.
     */
    record WriteStats(long retries, long documentsFailed) {
    }

    /** The {@link WriteStats} so far; safe to read from another thread. */
    WriteStats writeStats();

    /** Deletes records by id (a missing id is not an error). */
    void delete(String tenantId, List<String> ids);

    /**
     * Removes the chunks of older versions of one document ({@code invariant} and {@code lore} records whose
     * {@code doc_version} is below {@code keepVersion}); returns how many were deleted. Refreshes first, so chunks
     * written just before are deleted too.
     */
    long deleteOlderDocumentVersions(String tenantId, String agentId, String docPath, long keepVersion);

    /**
     * Deletes what a forget covers now (docs/contracts.md, "Forgetting"): a record and everything whose
     * {@code source_refs} name it; a session's records, summaries included; a user's records and every record of
     * that user's sessions. Idempotent: a replay deletes nothing more. Returns how many records it deleted.
     */
    long forget(String tenantId, ForgetScope scope, String target);

    /** A record of the tenant by id, without its vector; empty when absent or of another tenant. */
    default Optional<MemoryRecord> get(String tenantId, String id) {
        return get(tenantId, List.of(id)).stream().findFirst();
    }

    /** The most ids {@link #get(String, List)} reads at once. */
    int MAX_IDS_PER_GET = 1000;

    /** The tenant's records of these ids (at most {@link #MAX_IDS_PER_GET}) it holds, without their vectors, in no order. */
    List<MemoryRecord> get(String tenantId, List<String> ids);

    /**
     * A tenant's records matching every term (field → value), newest first, {@code limit} per page, without
     * vectors; {@code cursor} is the previous page's {@link Page#nextCursor()}, or null for the first.
     */
    Page list(String tenantId, Map<String, Object> terms, Set<RecordType> types, int limit, String cursor);

    /** Makes every write so far searchable (tests, the demo, cycle closing). */
    void refresh();

    /** A batch of reads of the tenant, sent together. */
    ReadBatch reads(String tenantId);

    /**
     * BM25 over the text as English (stop words dropped, words stemmed: "painted" finds "paints"), the tenant's
     * records only, optionally of some types.
     */
    default List<ScoredRecord> bm25(String tenantId, String query, int k, Set<RecordType> types) {
        ReadBatch batch = reads(tenantId);
        Supplier<List<ScoredRecord>> hits = batch.bm25(query, k, types);
        batch.run();
        return hits.get();
    }

    /**
     * The tenant's turns whose session is a key of {@code positionsBySession} and whose position lies within
     * {@code radius} of one of its positions, the given ones included: the neighbours of retrieved turns, in one
     * search, without their vectors.
     */
    List<MemoryRecord> turnsAround(String tenantId, Map<String, Set<Integer>> positionsBySession, int radius);


    /**
     * k-NN on {@code embedding} with the tenant filter inside the k-NN query, so k hits of the tenant return;
     * scored by cosine similarity, without vectors.
     */
    default List<ScoredRecord> knn(String tenantId, float[] vector, int k, Set<RecordType> types) {
        ReadBatch batch = reads(tenantId);
        Supplier<List<ScoredRecord>> hits = batch.knn(vector, k, types);
        batch.run();
        return hits.get();
    }

    /**
     * Records of the tenant matching exact field values (or any of a collection's), sorted by {@code sortField}
     * (ascending or not), with their vectors.
     */
    List<MemoryRecord> find(String tenantId, Map<String, Object> terms, Set<RecordType> types, int size, String sortField, boolean ascending);

    /** How many records the tenant has (of the given types; all when empty). */
    long count(String tenantId, Set<RecordType> types);

    @Override
    void close();
}
