package io.engram.service;

import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.ContextItem;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.retrieval.ContextService;
import io.engram.retrieval.HybridRetriever;
import io.engram.retrieval.Stages;
import io.engram.store.MemoryReader;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * {@link MemoryReads} over a map, for the service's unit tests: exact reads by id and listings as the store
 * answers them (tenant-scoped, newest first, cursors), a search that finds records sharing a word with the query,
 * and a context of those hits within the budget. With {@link #failure} set, every read throws it.
 */
final class InMemoryReads implements MemoryReads {

    private final Map<String, MemoryRecord> byId = new ConcurrentHashMap<>();
    volatile RuntimeException failure;

    void put(MemoryRecord record) {
        byId.put(record.id(), record);
    }

    void remove(String id) {
        byId.remove(id);
    }

    private Stream<MemoryRecord> of(String tenantId) {
        if (failure != null) {
            throw failure;
        }
        return byId.values().stream().filter(r -> r.tenantId().equals(tenantId))
                .sorted(Comparator.comparing(MemoryRecord::ts).reversed().thenComparing(MemoryRecord::id));
    }

    @Override
    public ContextService.CachedRules cachedRules() {
        return new ContextService.CachedRules(0, 0); // its context reads no rules
    }

    @Override
    public AssembledContext context(ContextService.Request request, Instant now, Stages stages) {
        List<AssembledContext.Included> included = new ArrayList<>();
        int used = 0;
        for (HybridRetriever.Result hit : search(new HybridRetriever.Query(request.tenantId(), request.query(),
                request.sessionId(), request.userId(), Set.of(), 100, now, request.asOf()), stages)) {
            if (used + hit.record().tokens() <= request.budgetTokens()) {
                used += hit.record().tokens();
                included.add(new AssembledContext.Included(ContextItem.of(hit.record(), hit.score()),
                        AssembledContext.Section.MEMORIES, hit.record().tokens(), "shares a word with the query"));
            }
        }
        return new AssembledContext(included, List.of(), used, request.budgetTokens(), false, List.of());
    }

    @Override
    public List<HybridRetriever.Result> search(HybridRetriever.Query query, Stages stages) {
        Set<String> words = Set.of(query.text().toLowerCase(Locale.ROOT).split("\\W+"));
        List<MemoryRecord> hits = of(query.tenantId())
                .filter(r -> query.types().isEmpty() || query.types().contains(r.type()))
                .filter(r -> query.validity().holds(r))
                .filter(r -> Stream.of(r.text().toLowerCase(Locale.ROOT).split("\\W+")).anyMatch(words::contains))
                .limit(query.k()).toList();
        List<HybridRetriever.Result> results = new ArrayList<>();
        for (int i = 0; i < hits.size(); i++) {
            results.add(new HybridRetriever.Result(hits.get(i), 1.0 / (i + 1), 0, 1.0 / (i + 1), i + 1, null));
        }
        return results;
    }

    @Override
    public List<MemoryRecord> get(String tenantId, List<String> ids) {
        return of(tenantId).filter(r -> ids.contains(r.id())).toList();
    }

    @Override
    public Page list(String tenantId, Map<String, Object> terms, Set<RecordType> types, MemoryReader.Order order,
                     int limit, String cursor) {
        int from;
        try {
            from = cursor == null ? 0 : Integer.parseInt(cursor);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a cursor of this listing: " + cursor);
        }
        Comparator<MemoryRecord> oldestFirst = Comparator.comparing(MemoryRecord::ts).thenComparing(MemoryRecord::id);
        List<MemoryRecord> matching = of(tenantId).filter(r -> types.isEmpty() || types.contains(r.type()))
                .filter(r -> Objects.equals(terms.getOrDefault("session_id", r.sessionId()), r.sessionId())
                        && Objects.equals(terms.getOrDefault("user_id", r.userId()), r.userId())
                        && Objects.equals(terms.getOrDefault("agent_id", r.agentId()), r.agentId())
                        && Objects.equals(terms.getOrDefault("superseded_by", r.supersededBy()), r.supersededBy()))
                .sorted(order == MemoryReader.Order.OLDEST_FIRST ? oldestFirst
                        : Comparator.comparing(MemoryRecord::ts).reversed().thenComparing(MemoryRecord::id))
                .skip(from).toList();
        return new Page(matching.subList(0, Math.min(limit, matching.size())),
                matching.size() > limit ? String.valueOf(from + limit) : null);
    }

    @Override
    public List<MemoryReader.Entity> entities(String tenantId, Map<String, Object> terms, int limit) {
        return MemoryReader.countEntities(of(tenantId).filter(r -> matches(r, terms)).toList(), limit, 5, 3);
    }

    /** The terms {@code GET /v1/entities} passes: a session, a user, a name the record mentions. */
    private static boolean matches(MemoryRecord r, Map<String, Object> terms) {
        return Objects.equals(terms.getOrDefault("session_id", r.sessionId()), r.sessionId())
                && Objects.equals(terms.getOrDefault("user_id", r.userId()), r.userId())
                && (!terms.containsKey(MemoryReader.ENTITIES) || MemoryReader.mentions(r).contains(terms.get(MemoryReader.ENTITIES)));
    }

    @Override
    public List<Document> documents(String tenantId) {
        return of(tenantId).filter(r -> r.docPath() != null).map(r -> List.of(r.agentId(), r.docPath())).distinct()
                .map(d -> new Document(d.get(0), d.get(1), 1, document(tenantId, d.get(0), d.get(1), 1000).size()))
                .toList();
    }

    @Override
    public List<MemoryRecord> document(String tenantId, String agentId, String path, int max) {
        return of(tenantId).filter(r -> agentId.equals(r.agentId()) && path.equals(r.docPath()))
                .sorted(Comparator.comparing(MemoryRecord::position)).limit(max).toList();
    }

    @Override
    public long storedRecords(String tenantId) {
        return of(tenantId).filter(r -> r.type() != RecordType.SUMMARY && r.type() != RecordType.WINDOW).count();
    }

    @Override
    public String embeddingModel() {
        if (failure != null) {
            throw failure;
        }
        return "in-memory";
    }

    @Override
    public void close() {
    }
}
