package io.engram.store;

import io.engram.model.facts.Validity;
import io.engram.model.retrieval.AgentScope;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.StoreWriteException.ItemFailure;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The memory store on the heap, for operator harness tests and unit tests that need a store but no node; held to
 * {@link OpenSearchMemoryStore} by {@link MemoryStoreContract}. Indices are named and live as long as the JVM, so
 * a store a {@link #at factory} opens inside an operator and the test reading it back see the same index. Writes
 * are searchable at once ({@link #refresh} has nothing to do). Lexical search is {@link InMemoryBm25}'s; sorting
 * is by numeric fields and {@code ts}, the only ones the callers sort by.
 */
public final class InMemoryMemoryStore implements MemoryStore {

    private static final Map<String, Index> INDICES = new ConcurrentHashMap<>();

    /** One index: the records by id, and the model and dimension {@link #ensureIndex} recorded (null: not set up). */
    private static final class Index {
        final Map<String, MemoryRecord> records = new TreeMap<>();
        String model;
        int dimension;
        VectorEncoding encoding;
    }

    private record Named(String index) implements MemoryStore.Factory {
        private static final long serialVersionUID = 1L;

        @Override
        public MemoryStore open() {
            return new InMemoryMemoryStore(index);
        }
    }

    private final String name;
    private final Index index;
    private final LongAdder documentsFailed = new LongAdder();

    /** A factory of stores over the index {@code name}, for an operator to open where it runs. */
    public static MemoryStore.Factory at(String name) {
        return new Named(name);
    }

    public InMemoryMemoryStore(String name) {
        this.name = name;
        this.index = INDICES.computeIfAbsent(name, n -> new Index());
    }

    @Override
    public void ensureIndex(String embeddingModel, int dimension, VectorEncoding encoding) {
        synchronized (index) {
            if (index.model != null && !index.model.equals(embeddingModel)) {
                throw new IllegalStateException("index " + name + " holds vectors of embedding model " + index.model
                        + ", not " + embeddingModel);
            }
            if (index.encoding != null && index.encoding != encoding) {
                throw new IllegalStateException("index " + name + " holds its vectors in encoding " + index.encoding.id()
                        + ", not " + encoding.id());
            }
            index.model = embeddingModel;
            index.dimension = dimension;
            index.encoding = encoding;
        }
    }

    @Override
    public String embeddingModel() {
        synchronized (index) {
            if (index.model == null) {
                throw new IllegalStateException("index " + name + " does not exist");
            }
            return index.model;
        }
    }

    @Override
    public void refresh() {
    }

    /** A vector of another dimension than the index's is refused for good, as OpenSearch's mapping refuses it. */
    @Override
    public void upsert(List<MemoryRecord> records) {
        List<ItemFailure> refused = new ArrayList<>();
        synchronized (index) {
            for (MemoryRecord r : records) {
                if (r.embedding() != null && index.dimension > 0 && r.embedding().length != index.dimension) {
                    refused.add(new ItemFailure(r.id(), 400, "mapper_parsing_exception: vector of dimension "
                            + r.embedding().length + ", not " + index.dimension));
                } else {
                    index.records.put(r.id(), r);
                }
            }
        }
        if (!refused.isEmpty()) {
            documentsFailed.add(refused.size());
            throw new StoreWriteException("the index refused " + refused.size() + " documents", refused, null);
        }
    }

    @Override
    public void delete(String tenantId, List<String> ids) {
        synchronized (index) {
            ids.forEach(id -> index.records.computeIfPresent(id, (k, r) -> r.tenantId().equals(tenantId) ? null : r));
        }
    }

    @Override
    public void supersede(String tenantId, List<Superseded> marks) {
        synchronized (index) {
            for (Superseded mark : marks) {
                index.records.computeIfPresent(mark.id(), (id, r) -> r.tenantId().equals(tenantId)
                        ? r.withSupersededBy(mark.by(), mark.at()) : r);
            }
        }
    }

    @Override
    public long deleteOlderThan(String tenantId, RecordType type, Instant cutoff) {
        return deleteWhere(tenantId, r -> r.type() == type && r.ts().isBefore(cutoff));
    }

    @Override
    public long countOlderThan(String tenantId, RecordType type, Instant cutoff) {
        synchronized (index) {
            return records(tenantId, Set.of(type)).filter(r -> r.ts().isBefore(cutoff)).count();
        }
    }

    @Override
    public WriteStats writeStats() {
        return new WriteStats(0, documentsFailed.sum());
    }

    @Override
    public long deleteOlderDocumentVersions(String tenantId, String agentId, String docPath, long keepVersion) {
        return deleteWhere(tenantId, r -> (r.type() == RecordType.INVARIANT || r.type() == RecordType.LORE)
                && agentId.equals(r.agentId()) && docPath.equals(r.docPath()) && r.docVersion() != null
                && r.docVersion() < keepVersion);
    }

    @Override
    public long forget(String tenantId, ForgetScope scope, String target) {
        Predicate<MemoryRecord> covered = switch (scope) {
            case MEMORY -> {
                MemoryRecord turn = get(tenantId, target).filter(r -> r.type() == RecordType.TURN).orElse(null);
                String turnId = turn == null ? null : RecordIds.turnIdOf(tenantId, turn.sessionId(), target).orElse(null);
                String own = turn == null ? RecordIds.memoryIdOf(tenantId, target).orElse(target) : target;
                yield r -> r.id().equals(target) || r.sourceRefs().contains(target) || r.sourceRefs().contains(own)
                        || (turnId != null
                        && turn.sessionId().equals(r.sessionId()) && r.sourceRefs().contains(turnId));
            }
            case SESSION -> r -> target.equals(r.sessionId());
            case USER -> {
                Set<String> sessions = new HashSet<>();
                records(tenantId, Set.of()).filter(r -> target.equals(r.userId()) && r.sessionId() != null)
                        .forEach(r -> sessions.add(r.sessionId()));
                yield r -> target.equals(r.userId()) || sessions.contains(r.sessionId());
            }
            case TENANT -> r -> true; // every record of the tenant: deleteWhere reads no other tenant's
        };
        return deleteWhere(tenantId, covered);
    }

    private long deleteWhere(String tenantId, Predicate<MemoryRecord> covered) {
        synchronized (index) {
            List<String> ids = records(tenantId, Set.of()).filter(covered).map(MemoryRecord::id).toList();
            ids.forEach(index.records::remove);
            return ids.size();
        }
    }

    @Override
    public Page list(String tenantId, Map<String, Object> terms, Set<RecordType> types, Order order, int limit,
                     String cursor) {
        int direction = order == Order.OLDEST_FIRST ? 1 : -1;
        Comparator<MemoryRecord> inOrder = Comparator.comparingLong((MemoryRecord r) -> direction * r.ts().toEpochMilli())
                .thenComparing(MemoryRecord::id);
        Stream<MemoryRecord> after = records(tenantId, types).filter(r -> matches(r, terms)).sorted(inOrder);
        if (cursor != null) {
            var last = PageCursor.decode(cursor, order);
            long ts = direction * last.get(0).asLong();
            String id = last.get(1).asText();
            after = after.filter(r -> direction * r.ts().toEpochMilli() > ts
                    || (direction * r.ts().toEpochMilli() == ts && r.id().compareTo(id) > 0));
        }
        List<MemoryRecord> page = after.limit(limit + 1L).map(InMemoryMemoryStore::withoutVector).toList();
        if (page.size() <= limit) {
            return new Page(page, null);
        }
        MemoryRecord last = page.get(limit - 1);
        var sortValues = VectorJson.MAPPER.createArrayNode().add(last.ts().toEpochMilli()).add(last.id());
        return new Page(page.subList(0, limit), PageCursor.encode(sortValues, order));
    }

    @Override
    public ReadBatch reads(String tenantId) {
        records(tenantId, Set.of()); // the tenant is checked when the batch is made, as OpenSearch's is
        return new InMemoryReads(this, tenantId, null, null);
    }

    @Override
    public ReadBatch reads(String tenantId, Validity validity, AgentScope agents) {
        records(tenantId, Set.of());
        return new InMemoryReads(this, tenantId, validity, agents);
    }

    @Override
    public List<MemoryRecord> find(String tenantId, Map<String, Object> terms, Set<RecordType> types, int size,
                                   String sortField, boolean ascending) {
        Stream<MemoryRecord> found = records(tenantId, types).filter(r -> matches(r, terms));
        if (sortField != null) {
            Comparator<MemoryRecord> order = Comparator.comparing(r -> sortValue(r, sortField),
                    Comparator.nullsLast(ascending ? Comparator.<Double>naturalOrder() : Comparator.<Double>reverseOrder()));
            found = found.sorted(order);
        }
        return found.limit(size).toList();
    }

    @Override
    public List<Entity> entities(String tenantId, Map<String, Object> terms, int limit, int coMentions, int mentions) {
        synchronized (index) {
            return MemoryReader.countEntities(records(tenantId, Set.of()).filter(r -> matches(r, terms)).toList(), limit,
                    coMentions, mentions);
        }
    }

    @Override
    public long count(String tenantId, Set<RecordType> types) {
        return records(tenantId, types).count();
    }

    /** The tenant's records of {@code types} (all when empty), by id, with their vectors, as a copy. */
    Stream<MemoryRecord> records(String tenantId, Set<RecordType> types) {
        if (tenantId == null || tenantId.isEmpty()) {
            throw new IllegalArgumentException("every query needs a tenant");
        }
        synchronized (index) {
            return index.records.values().stream().filter(r -> r.tenantId().equals(tenantId))
                    .filter(r -> types.isEmpty() || types.contains(r.type())).toList().stream();
        }
    }

    /** Whether the record has every term's value in its field (any of a collection's; a list field: any element). */
    static boolean matches(MemoryRecord r, Map<String, Object> terms) {
        // the mentions only when asked: tagging every record of every listing would slow the harness tests
        Map<String, Object> source = terms.containsKey(ENTITIES) ? OpenSearchMemoryStore.indexed(r, true) : r.toSource();
        return terms.entrySet().stream().allMatch(term -> {
            Collection<?> wanted = term.getValue() instanceof Collection<?> any ? any : List.of(term.getValue());
            Object value = source.get(term.getKey());
            Collection<?> held = value instanceof Collection<?> list ? list : value == null ? List.of() : List.of(value);
            return held.stream().anyMatch(h -> wanted.stream().anyMatch(w -> String.valueOf(h).equals(String.valueOf(w))));
        });
    }

    /** A numeric field's value for sorting ({@code ts} in epoch millis), null when the record has none. */
    static Double sortValue(MemoryRecord r, String field) {
        if (field.equals("ts")) {
            return (double) r.ts().toEpochMilli();
        }
        Object value = r.toSource().get(field);
        return value instanceof Number n ? n.doubleValue() : null;
    }

    /** The record as reads without vectors return it. */
    static MemoryRecord withoutVector(MemoryRecord r) {
        return r.withEmbedding(null, r.tokens());
    }

    @Override
    public void close() {
    }
}
