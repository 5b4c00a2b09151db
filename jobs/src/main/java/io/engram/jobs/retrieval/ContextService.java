package io.engram.jobs.retrieval;

import io.engram.jobs.store.MemoryStore;
import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.ContextAssembler;
import io.engram.model.retrieval.ContextItem;
import io.engram.model.retrieval.ContinuityTail;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * "Assemble the context for tenant T, session S, query Q within B tokens": the tenant's hard and soft rules,
 * the session's recent raw tail, and the best memories, through {@link ContextAssembler}. The same code serves
 * {@code POST /v1/context}, {@code ./engram recall} and the LoCoMo evaluation.
 */
public final class ContextService {

    /** Memory types that compete for the budget left after rules and tail. */
    public static final Set<RecordType> MEMORY_TYPES = Set.of(RecordType.LORE, RecordType.MEMORY, RecordType.LESSON,
            RecordType.KNOWLEDGE, RecordType.SUMMARY, RecordType.TURN);
    private static final int MAX_RULES = 10_000;
    private static final int TAIL_WINDOW = 256;

    /** One request. */
    public record Request(String tenantId, String sessionId, String userId, String query, int budgetTokens) {
    }

    private final MemoryStore store;
    private final HybridRetriever retriever;
    private final ContextAssembler assembler;
    private final ContinuityTail tail;
    private final int memoryCandidates;

    public ContextService(MemoryStore store, HybridRetriever retriever, double alpha2, ContinuityTail tail,
                          int memoryCandidates) {
        this.store = store;
        this.retriever = retriever;
        this.assembler = new ContextAssembler(alpha2);
        this.tail = tail;
        this.memoryCandidates = memoryCandidates;
    }

    public AssembledContext assemble(Request request, Instant now) {
        List<ContextItem> hard = rules(request.tenantId(), 1);
        List<ContextItem> soft = rules(request.tenantId(), 2);
        List<ContextItem> recent = request.sessionId() == null ? List.of() : recentTail(request);
        List<ContextItem> candidates = new ArrayList<>();
        if (request.query() != null && !request.query().isBlank()) {
            for (HybridRetriever.Result r : retriever.search(new HybridRetriever.Query(request.tenantId(),
                    request.query(), request.sessionId(), request.userId(), MEMORY_TYPES, memoryCandidates, now))) {
                candidates.add(item(r.record(), r.score()));
            }
        }
        return assembler.assemble(request.budgetTokens(), hard, recent, soft, candidates);
    }

    private List<ContextItem> rules(String tenantId, int tier) {
        List<MemoryRecord> records = new ArrayList<>(store.find(tenantId, Map.of("tier", tier),
                Set.of(RecordType.INVARIANT), MAX_RULES, null, true));
        records.sort(Comparator.comparing((MemoryRecord r) -> r.agentId() == null ? "" : r.agentId())
                .thenComparing(r -> r.docPath() == null ? "" : r.docPath())
                .thenComparing(r -> r.position() == null ? 0 : r.position()));
        return records.stream().map(r -> item(r, 0)).toList();
    }

    private List<ContextItem> recentTail(Request request) {
        List<MemoryRecord> newestFirst = store.find(request.tenantId(), Map.of("session_id", request.sessionId()),
                Set.of(RecordType.TURN), TAIL_WINDOW, "position", false);
        List<TailTurn> turns = new ArrayList<>();
        for (int i = newestFirst.size() - 1; i >= 0; i--) {
            turns.add(new TailTurn(newestFirst.get(i)));
        }
        int start = tail.start(turns, t -> t.record().tokens());
        return turns.subList(start, turns.size()).stream().map(t -> item(t.record(), 0)).toList();
    }

    private record TailTurn(MemoryRecord record) implements ContinuityTail.Turn {
        @Override
        public boolean isUser() {
            return "user".equals(record.role());
        }

        @Override
        public boolean isAssistant() {
            return "assistant".equals(record.role());
        }
    }

    private static ContextItem item(MemoryRecord r, double score) {
        return new ContextItem(r.id(), r.type(), r.text(), r.tokens(), score);
    }
}
