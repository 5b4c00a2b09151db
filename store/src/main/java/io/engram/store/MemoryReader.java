package io.engram.store;

import io.engram.model.entities.EntityMentions;
import io.engram.model.facts.Validity;
import io.engram.model.retrieval.AgentScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The memory index as the read side uses it (retrieval, context assembly, the memory service, the detector's
 * read-back). Every read names its tenant and returns that tenant's records only; there is no method without one.
 * Term values that are collections match any of their elements. Reads see what was written once the index was
 * refreshed ({@link MemoryIndexAdmin#refresh}).
 */
public interface MemoryReader extends AutoCloseable {

    /** The most ids {@link #get(String, List)} reads at once. */
    int MAX_IDS_PER_GET = 1000;

    /** What a hit carries besides the record. */
    record ScoredRecord(MemoryRecord record, double score) {
    }

    /** One page of a listing, in its order, and the cursor of the next page (null after the last). */
    record Page(List<MemoryRecord> records, String nextCursor) {
    }

    /**
     * A stamp of a set of records that changes when one of them is added, removed, or replaced by another
     * document version or tier: their count and the sums of {@code doc_version}, {@code tier}, {@code position} and
     * {@code tokens}. What a cache of a tenant's rules is keyed by. {@code agents}: up to {@value #STAMP_AGENTS}
     * of the records' {@code agent_id}s, in order — enough to tell a set of one agent's records (and shared ones)
     * from one of several agents' ({@code AgentScope.of}).
     */
    record Stamp(long records, double versions, double tiers, double positions, double tokens, List<String> agents) {
        public Stamp {
            agents = List.copyOf(agents);
        }
    }

    /** How many agent ids a {@link Stamp} names at most. */
    int STAMP_AGENTS = 3;

    /**
     * An entity of a tenant (docs/algorithms.md, "Entities"): a name its records mention, in how many records, the
     * names mentioned most often beside it (each with the records mentioning both) and its newest mentions.
     */
    record Entity(String name, long records, List<CoMention> coMentions, List<MemoryRecord> mentionedBy) {
        public Entity {
            coMentions = List.copyOf(coMentions);
            mentionedBy = List.copyOf(mentionedBy);
        }
    }

    /** A name mentioned beside an entity, and in how many records both are. */
    record CoMention(String name, long records) {
    }

    /** The index field holding the names a record mentions ({@code EntityMentions}): all records but windows'. */
    String ENTITIES = "entities";

    /** The names a record's document holds in {@link #ENTITIES}: its text's mentions, none for a window. */
    static List<String> mentions(MemoryRecord r) {
        return r.type() == RecordType.WINDOW ? List.of() : EntityMentions.in(r.text());
    }

    /**
     * What {@link #entities} answers, counted over records held in memory (a store without OpenSearch's
     * aggregations: the in-memory ones of tests, which the store's contract test holds to OpenSearch's).
     */
    static List<Entity> countEntities(Collection<MemoryRecord> records, int limit, int coMentions, int mentions) {
        Map<String, List<MemoryRecord>> mentioning = new HashMap<>();
        Map<String, List<String>> names = new HashMap<>();
        for (MemoryRecord r : records) {
            names.put(r.id(), mentions(r));
            names.get(r.id()).forEach(n -> mentioning.computeIfAbsent(n, k -> new ArrayList<>()).add(r));
        }
        Comparator<Map.Entry<String, Long>> mostFirst = Comparator.comparingLong((Map.Entry<String, Long> e) -> -e.getValue())
                .thenComparing(Map.Entry::getKey);
        Comparator<MemoryRecord> newestFirst = Comparator.comparingLong((MemoryRecord r) -> -r.ts().toEpochMilli())
                .thenComparing(MemoryRecord::id);
        return mentioning.entrySet().stream().map(e -> Map.entry(e.getKey(), (long) e.getValue().size())).sorted(mostFirst)
                .limit(limit).map(entity -> {
                    Map<String, Long> beside = new HashMap<>();
                    mentioning.get(entity.getKey()).forEach(r -> names.get(r.id()).stream()
                            .filter(n -> !n.equals(entity.getKey())).forEach(n -> beside.merge(n, 1L, Long::sum)));
                    return new Entity(entity.getKey(), entity.getValue(), beside.entrySet().stream().sorted(mostFirst)
                            .limit(coMentions).map(c -> new CoMention(c.getKey(), c.getValue())).toList(),
                            mentioning.get(entity.getKey()).stream().sorted(newestFirst).limit(mentions)
                                    .map(r -> r.withEmbedding(null, r.tokens())).toList());
                }).toList();
    }

    /** An agent document of a tenant, as its partitioned records (rules and lore) hold it: its latest version. */
    record Document(String agentId, String path, long version, long records) {
    }

    /**
     * Reads of one tenant queued and sent in one round trip. Each method queues a search and returns the holder
     * of its answer, readable once {@link #run()} has returned; reading it before throws, and so does queueing
     * after the run.
     */
    interface ReadBatch {

        /** {@link MemoryReader#bm25}, each hit with its vector (the read path scores its cosine). */
        Supplier<List<ScoredRecord>> bm25(String query, int k, Set<RecordType> types);

        /** {@link MemoryReader#knn}: hits scored by their cosine similarity to {@code vector}, without vectors. */
        Supplier<List<ScoredRecord>> knn(float[] vector, int k, Set<RecordType> types);

        /** {@link MemoryReader#get(String, List)}. */
        Supplier<List<MemoryRecord>> get(List<String> ids);

        /** {@link #get} for any number of ids, queued as reads of at most {@link #MAX_IDS_PER_GET} each. */
        default Supplier<List<MemoryRecord>> getAll(List<String> ids) {
            List<Supplier<List<MemoryRecord>>> parts = new ArrayList<>();
            for (int from = 0; from < ids.size(); from += MAX_IDS_PER_GET) {
                parts.add(get(ids.subList(from, Math.min(ids.size(), from + MAX_IDS_PER_GET))));
            }
            return () -> parts.stream().flatMap(part -> part.get().stream()).toList();
        }

        /** {@link MemoryReader#turnsAround}. */
        Supplier<List<MemoryRecord>> turnsAround(Map<String, Set<Integer>> positionsBySession, int radius);

        /** {@link MemoryReader#find}, without vectors. */
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
     * The embedding model whose vectors the index holds, so the read side embeds queries with the same one;
     * {@link MemoryIndexTemplate#UNRECORDED_MODEL} for an index created before the model was recorded. An index
     * that does not exist is an {@link IllegalStateException}.
     */
    String embeddingModel();

    /** A record of the tenant by id, without its vector; empty when absent or of another tenant. */
    default Optional<MemoryRecord> get(String tenantId, String id) {
        return get(tenantId, List.of(id)).stream().findFirst();
    }

    /** The tenant's records of these ids (at most {@link #MAX_IDS_PER_GET}) it holds, without their vectors, in no order. */
    default List<MemoryRecord> get(String tenantId, List<String> ids) {
        ReadBatch batch = reads(tenantId);
        Supplier<List<MemoryRecord>> records = batch.get(ids);
        batch.run();
        return records.get();
    }

    /** The order of a listing's records: by {@code ts}, then by id ascending. */
    enum Order {
        /** Newest first: what a person browsing a tenant's records sees. */
        NEWEST_FIRST,
        /** Oldest first: an export's order, so a memory comes after what it supersedes. */
        OLDEST_FIRST
    }

    /** {@link #list(String, Map, Set, Order, int, String)} newest first. */
    default Page list(String tenantId, Map<String, Object> terms, Set<RecordType> types, int limit, String cursor) {
        return list(tenantId, terms, types, Order.NEWEST_FIRST, limit, cursor);
    }

    /**
     * A tenant's records matching every term (field → value), in {@code order} (then by id), {@code limit} per page,
     * without vectors; {@code cursor} is the previous page's {@link Page#nextCursor()}, or null for the first. A
     * cursor this store did not make, or made for the other order, is an {@link IllegalArgumentException}.
     */
    Page list(String tenantId, Map<String, Object> terms, Set<RecordType> types, Order order, int limit, String cursor);

    /**
     * The tenant's {@code limit} most mentioned entities among its records matching every term (e.g. a user's or a
     * session's, or those naming one entity: {@link #ENTITIES}), most mentioned first (then by name), each with
     * up to {@code coMentions} names beside it and its {@code mentions} newest records, without vectors.
     */
    List<Entity> entities(String tenantId, Map<String, Object> terms, int limit, int coMentions, int mentions);

    /** A batch of reads of the tenant, sent together. */
    ReadBatch reads(String tenantId);

    /**
     * A batch of reads of the tenant whose searches ({@link ReadBatch#bm25}, {@link ReadBatch#knn}) return only the
     * records {@code validity} holds for (the current ones, or those of an {@code as_of}) and, unless {@code agents}
     * is null, only those {@code agents} sees ({@link AgentScope#sees}).
     */
    ReadBatch reads(String tenantId, Validity validity, AgentScope agents);

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
     * k-NN on {@code embedding} among the tenant's records, so k hits of the tenant return; scored by cosine
     * similarity, without vectors.
     */
    default List<ScoredRecord> knn(String tenantId, float[] vector, int k, Set<RecordType> types) {
        ReadBatch batch = reads(tenantId);
        Supplier<List<ScoredRecord>> hits = batch.knn(vector, k, types);
        batch.run();
        return hits.get();
    }

    /**
     * The tenant's turns whose session is a key of {@code positionsBySession} and whose position lies within
     * {@code radius} of one of its positions, the given ones included: the neighbours of retrieved turns, in one
     * search, without their vectors.
     */
    default List<MemoryRecord> turnsAround(String tenantId, Map<String, Set<Integer>> positionsBySession, int radius) {
        ReadBatch batch = reads(tenantId);
        Supplier<List<MemoryRecord>> turns = batch.turnsAround(positionsBySession, radius);
        batch.run();
        return turns.get();
    }

    /**
     * Records of the tenant matching exact field values (or any of a collection's), sorted by {@code sortField}
     * (ascending or not; records without the field last), with their vectors.
     */
    List<MemoryRecord> find(String tenantId, Map<String, Object> terms, Set<RecordType> types, int size,
                            String sortField, boolean ascending);

    /** How many records the tenant has (of the given types; all when empty). */
    long count(String tenantId, Set<RecordType> types);

    @Override
    void close();
}
