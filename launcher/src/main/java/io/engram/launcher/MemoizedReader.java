package io.engram.launcher;

import io.engram.model.facts.Validity;
import io.engram.model.retrieval.AgentScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.MemoryReader;
import java.nio.FloatBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * A reader that answers a search it has answered since the last {@link #forget()} from memory. For the LoCoMo
 * evaluation only, whose many configurations ask the same searches of one index that no longer changes: a live
 * store changes between two reads. Listings and counts pass through.
 */
final class MemoizedReader implements MemoryReader {

    private final MemoryReader store;
    private final Map<List<Object>, Object> answers = new ConcurrentHashMap<>();

    MemoizedReader(MemoryReader store) {
        this.store = store;
    }

    /** Drops every answer kept (the evaluation forgets them after each question, so memory stays bounded). */
    void forget() {
        answers.clear();
    }

    @SuppressWarnings("unchecked")
    private <T> Supplier<T> memo(List<Object> key, Supplier<Supplier<T>> ask) {
        Object known = answers.get(key);
        if (known != null) {
            return () -> (T) known;
        }
        Supplier<T> pending = ask.get();
        return () -> (T) answers.computeIfAbsent(key, k -> pending.get());
    }

    @Override
    public ReadBatch reads(String tenantId) {
        return memoized(List.of(tenantId), store.reads(tenantId));
    }

    @Override
    public ReadBatch reads(String tenantId, Validity validity, AgentScope agents) {
        return memoized(Arrays.asList(tenantId, validity, agents), store.reads(tenantId, validity, agents));
    }

    /** {@code batch}, its searches answered from memory under {@code scope} (the tenant and the validity asked). */
    private ReadBatch memoized(List<Object> scope, ReadBatch batch) {
        return new ReadBatch() {
            private boolean asked;

            private <T> Supplier<T> memo(List<Object> key, Supplier<Supplier<T>> ask) {
                return MemoizedReader.this.memo(key, () -> {
                    asked = true;
                    return ask.get();
                });
            }

            @Override
            public Supplier<List<ScoredRecord>> bm25(String query, int k, Set<RecordType> types) {
                return memo(Arrays.asList("bm25", scope, query, k, types), () -> batch.bm25(query, k, types));
            }

            @Override
            public Supplier<List<ScoredRecord>> knn(float[] vector, int k, Set<RecordType> types) {
                return memo(Arrays.asList("knn", scope, FloatBuffer.wrap(vector.clone()), k, types),
                        () -> batch.knn(vector, k, types));
            }

            @Override
            public Supplier<List<MemoryRecord>> get(List<String> ids) {
                return memo(Arrays.asList("get", scope, List.copyOf(ids)), () -> batch.get(ids));
            }

            @Override
            public Supplier<List<MemoryRecord>> turnsAround(Map<String, Set<Integer>> positionsBySession, int radius) {
                return memo(Arrays.asList("around", scope, positionsBySession, radius),
                        () -> batch.turnsAround(positionsBySession, radius));
            }

            @Override
            public Supplier<List<MemoryRecord>> find(Map<String, Object> terms, Set<RecordType> types, int size,
                                                     String sortField, boolean ascending) {
                return memo(Arrays.asList("find", scope, terms, types, size, sortField, ascending),
                        () -> batch.find(terms, types, size, sortField, ascending));
            }

            @Override
            public Supplier<Stamp> stamp(Map<String, Object> terms, Set<RecordType> types) {
                return memo(Arrays.asList("stamp", scope, terms, types), () -> batch.stamp(terms, types));
            }

            @Override
            public Supplier<List<Document>> documents() {
                asked = true;
                return batch.documents();
            }

            @Override
            public void run() {
                if (asked) {
                    batch.run();
                }
            }
        };
    }

    @Override
    public String embeddingModel() {
        return store.embeddingModel();
    }

    @Override
    public Page list(String tenantId, Map<String, Object> terms, Set<RecordType> types, Order order, int limit,
                     String cursor) {
        return store.list(tenantId, terms, types, order, limit, cursor);
    }

    @Override
    public List<Entity> entities(String tenantId, Map<String, Object> terms, int limit, int coMentions, int mentions) {
        return store.entities(tenantId, terms, limit, coMentions, mentions);
    }

    @Override
    public List<MemoryRecord> find(String tenantId, Map<String, Object> terms, Set<RecordType> types, int size,
                                   String sortField, boolean ascending) {
        return store.find(tenantId, terms, types, size, sortField, ascending);
    }

    @Override
    public long count(String tenantId, Set<RecordType> types) {
        return store.count(tenantId, types);
    }

    @Override
    public void close() {
        // the store is the caller's
    }
}
