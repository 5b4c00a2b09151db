package io.engram.store;

import io.engram.model.embed.Vectors;
import io.engram.model.facts.Validity;
import io.engram.model.retrieval.AgentScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.MemoryReader.Document;
import io.engram.store.MemoryReader.ScoredRecord;
import io.engram.store.MemoryReader.Stamp;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Stream;

/** {@link InMemoryMemoryStore}'s batch of reads: each queued read is computed when the batch runs. */
final class InMemoryReads implements MemoryReader.ReadBatch {

    private final InMemoryMemoryStore store;
    private final String tenantId;
    /** What the searches keep, as the OpenSearch store's queries keep it; null for every record. */
    private final Validity validity;
    /** Whose documents the searches keep; null for every agent's. */
    private final AgentScope agents;
    private final List<Runnable> queued = new ArrayList<>();
    private boolean ran;

    InMemoryReads(InMemoryMemoryStore store, String tenantId, Validity validity, AgentScope agents) {
        this.store = store;
        this.tenantId = tenantId;
        this.validity = validity;
        this.agents = agents;
    }

    private Stream<MemoryRecord> searched(Set<RecordType> types) {
        return store.records(tenantId, types).filter(r -> validity == null || validity.holds(r))
                .filter(r -> agents == null || agents.sees(r.agentId()));
    }

    private <T> Supplier<T> add(Supplier<T> read) {
        if (ran) {
            throw new IllegalStateException("this batch has run");
        }
        PendingAnswer<T> answer = new PendingAnswer<>();
        queued.add(() -> answer.fill(read.get()));
        return answer;
    }

    @Override
    public Supplier<List<ScoredRecord>> bm25(String query, int k, Set<RecordType> types) {
        return add(() -> new InMemoryBm25(searched(Set.of()).toList()).search(query, k, types));
    }

    @Override
    public Supplier<List<ScoredRecord>> knn(float[] vector, int k, Set<RecordType> types) {
        return add(() -> searched(types).filter(r -> r.embedding() != null)
                .map(r -> new ScoredRecord(InMemoryMemoryStore.withoutVector(r), cosine(vector, r.embedding())))
                .sorted(Comparator.comparingDouble(ScoredRecord::score).reversed()).limit(k).toList());
    }

    private static double cosine(float[] a, float[] b) {
        return Vectors.dot(a, b) / Math.sqrt((double) Vectors.dot(a, a) * Vectors.dot(b, b));
    }

    @Override
    public Supplier<List<MemoryRecord>> get(List<String> ids) {
        if (ids.size() > MemoryReader.MAX_IDS_PER_GET) {
            throw new IllegalArgumentException(ids.size() + " ids in one read; at most " + MemoryReader.MAX_IDS_PER_GET);
        }
        Set<String> wanted = Set.copyOf(ids);
        return add(() -> store.records(tenantId, Set.of()).filter(r -> wanted.contains(r.id()))
                .map(InMemoryMemoryStore::withoutVector).toList());
    }

    @Override
    public Supplier<List<MemoryRecord>> turnsAround(Map<String, Set<Integer>> positionsBySession, int radius) {
        return add(() -> store.records(tenantId, Set.of(RecordType.TURN)).filter(t -> t.position() != null
                        && positionsBySession.getOrDefault(t.sessionId(), Set.of()).stream()
                        .anyMatch(p -> Math.abs(t.position() - p) <= radius))
                .map(InMemoryMemoryStore::withoutVector).toList());
    }

    @Override
    public Supplier<List<MemoryRecord>> find(Map<String, Object> terms, Set<RecordType> types, int size,
                                             String sortField, boolean ascending) {
        return add(() -> store.find(tenantId, terms, types, size, sortField, ascending).stream()
                .map(InMemoryMemoryStore::withoutVector).toList());
    }

    @Override
    public Supplier<Stamp> stamp(Map<String, Object> terms, Set<RecordType> types) {
        return add(() -> {
            List<MemoryRecord> matching = store.records(tenantId, types)
                    .filter(r -> InMemoryMemoryStore.matches(r, terms)).toList();
            double[] sums = new double[TenantQueries.STAMP_SUMS.size()];
            for (MemoryRecord r : matching) {
                for (int i = 0; i < sums.length; i++) {
                    Double value = InMemoryMemoryStore.sortValue(r, TenantQueries.STAMP_SUMS.get(i));
                    sums[i] += value == null ? 0 : value;
                }
            }
            List<String> agents = matching.stream().map(MemoryRecord::agentId).filter(java.util.Objects::nonNull)
                    .distinct().sorted().limit(MemoryReader.STAMP_AGENTS).toList();
            return new Stamp(matching.size(), sums[0], sums[1], sums[2], sums[3], agents);
        });
    }

    @Override
    public Supplier<List<Document>> documents() {
        return add(() -> {
            Map<String, Map<String, long[]>> byAgent = new TreeMap<>(); // agent -> path -> {version, records}
            store.records(tenantId, Set.of(RecordType.INVARIANT, RecordType.LORE))
                    .filter(r -> r.agentId() != null && r.docPath() != null).forEach(r -> {
                        long[] document = byAgent.computeIfAbsent(r.agentId(), a -> new TreeMap<>())
                                .computeIfAbsent(r.docPath(), p -> new long[2]);
                        document[0] = Math.max(document[0], r.docVersion() == null ? 0 : r.docVersion());
                        document[1]++;
                    });
            List<Document> documents = new ArrayList<>();
            byAgent.forEach((agent, paths) -> paths.forEach((path, d) -> documents.add(new Document(agent, path, d[0], d[1]))));
            return documents;
        });
    }

    @Override
    public void run() {
        ran = true;
        queued.forEach(Runnable::run);
    }
}
