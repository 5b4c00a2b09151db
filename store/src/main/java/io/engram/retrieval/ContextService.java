package io.engram.retrieval;

import io.engram.model.retrieval.AssembledContext.Excluded;
import io.engram.model.retrieval.AssembledContext.Section;
import io.engram.model.retrieval.AgentScope;
import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.ContextAssembler;
import io.engram.model.retrieval.ContextItem;
import io.engram.model.retrieval.ContinuityTail;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.NeighbourTurns;
import io.engram.model.retrieval.RecordType;
import io.engram.model.retrieval.RelevanceFloor;
import io.engram.model.retrieval.SessionDiversity;
import io.engram.model.retrieval.SessionFocus;
import io.engram.model.retrieval.SpeakerMatch;
import io.engram.store.MemoryReader;
import io.engram.model.facts.Validity;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * "Assemble the context for tenant T, session S, query Q within B tokens": the tenant's hard and soft rules,
 * the session's recent raw tail, and the best memories, through {@link ContextAssembler}. The same code serves
 * {@code POST /v1/context}, {@code ./engram recall} and the LoCoMo evaluation.
 */
public final class ContextService {

    /** Every memory type: what {@code POST /v1/search} looks in by default. */
    public static final Set<RecordType> MEMORY_TYPES = Set.of(RecordType.LORE, RecordType.MEMORY, RecordType.LESSON,
            RecordType.KNOWLEDGE, RecordType.SUMMARY, RecordType.TURN);
    /**
     * The memory types that compete for a context's budget after rules and tail. Not summaries: compaction's
     * summaries are extractive, so every sentence of one is also a turn in the store (turns are kept), and a
     * summary in a context spends its budget saying again what the turns say (docs/benchmarks.md measures it).
     */
    public static final Set<RecordType> CONTEXT_TYPES = Set.of(RecordType.LORE, RecordType.MEMORY, RecordType.LESSON,
            RecordType.KNOWLEDGE, RecordType.TURN);
    private static final int MAX_RULES = 10_000;
    /** The records of agent documents: their stamp keys the rule cache and names the tenant's agents. */
    private static final Set<RecordType> DOCUMENT_TYPES = Set.of(RecordType.INVARIANT, RecordType.LORE);
    /** Rules held for all tenants together (tens of MB): a few hundred per agent document, so hundreds of tenants. */
    private static final int CACHED_RULES = 50_000;
    private static final int TAIL_WINDOW = 256;
    /** What the reason of a memory left out by the relevance floor says. */
    public static final String UNRELATED = "unrelated: no query word";

    /**
     * One request; {@code asOf}, when not null, asks for the memories valid then instead of now; {@code agentId} names
     * the agent whose documents the context holds ({@link AgentScope#of}: null for the tenant's one agent, or its
     * shared documents only); {@code allRules} asks for every hard rule whatever the budget.
     */
    public record Request(String tenantId, String sessionId, String userId, String query, int budgetTokens,
                          Instant asOf, String agentId, boolean allRules) {

        /** A request of no agent, within the budget. */
        public Request(String tenantId, String sessionId, String userId, String query, int budgetTokens, Instant asOf) {
            this(tenantId, sessionId, userId, query, budgetTokens, asOf, null, false);
        }

        /** A request for what is valid now. */
        public Request(String tenantId, String sessionId, String userId, String query, int budgetTokens) {
            this(tenantId, sessionId, userId, query, budgetTokens, null);
        }

        /** This request for {@code agent}. */
        public Request forAgent(String agent) {
            return new Request(tenantId, sessionId, userId, query, budgetTokens, asOf, agent, allRules);
        }
    }

    private final MemoryReader store;
    private final HybridRetriever retriever;
    private final ContextAssembler assembler;
    private final ContextOptions options;
    private final RuleCache ruleCache = new RuleCache(CACHED_RULES);

    /** The rule cache's contents: tenants and rules held (at most {@value #CACHED_RULES} rules, or one tenant's). */
    public record CachedRules(int tenants, int rules) {
    }

    /** What the rule cache holds now, for a gauge. */
    public CachedRules cachedRules() {
        return ruleCache.held();
    }

    public ContextService(MemoryReader store, HybridRetriever retriever, ContextOptions options) {
        if (options.turnRelevance() != null && retriever.options().ranking() != HybridRetriever.Ranking.LEARNED) {
            throw new IllegalArgumentException("a learned score of every candidate needs the learned ranking of the hits, "
                    + "not " + retriever.options().ranking());
        }
        this.store = store;
        this.retriever = retriever;
        this.assembler = new ContextAssembler(options.alpha2(), options.duplicateContainment(),
                retriever.tokenCounter());
        this.options = options;
    }

    public AssembledContext assemble(Request request, Instant now) {
        return assemble(request, now, new Stages());
    }

    /** {@link #assemble(Request, Instant)}, timing each stage into {@code stages}. */
    public AssembledContext assemble(Request request, Instant now, Stages stages) {
        // the rules' stamp and the session's tail travel with BM25, while the query is embedded and k-NN sent
        // (HybridRetriever); the rules themselves only when their stamp moved; then the neighbours of what was found
        // a read for an agent searches its records alone; one of no agent learns the tenant's agents in the same
        // round trip, and keeps what it found of the agent that resolves to (AgentScope.of)
        AgentScope asked = request.agentId() == null ? null : new AgentScope(request.agentId());
        MemoryReader.ReadBatch reads = store.reads(request.tenantId(), Validity.at(request.asOf(), now), asked);
        Supplier<MemoryReader.Stamp> documentsStamp = reads.stamp(Map.of(), DOCUMENT_TYPES);
        Supplier<List<MemoryRecord>> tail = request.sessionId() == null ? List::of
                : reads.find(Map.of("session_id", request.sessionId()), Set.of(RecordType.TURN), TAIL_WINDOW, "position", false);
        List<HybridRetriever.Result> searched = search(request, asked, now, reads, stages);
        AgentScope agents = asked != null ? asked : AgentScope.of(null, documentsStamp.get().agents());
        List<HybridRetriever.Result> hits = spread(request.query(), asked != null ? searched
                : searched.stream().filter(h -> agents.sees(h.record().agentId())).toList());
        RuleCache.Rules rules = rules(request.tenantId(), documentsStamp.get());
        stages.lap("rules");
        List<ContextItem> recent = recentTail(tail.get());
        Relevance relevance = relevance(hits);
        stages.lap("rank");
        addWhatHitsBring(request, relevance);
        stages.lap("neighbours");
        AssembledContext context = assembler.assemble(request.budgetTokens(), request.query(), request.allRules(),
                rules.hard(agents), recent, rules.soft(agents), new ArrayList<>(relevance.candidates().values()));
        stages.lap("assemble");
        return withUnrelated(context, relevance.unrelated()).forAgent(agents.agentId());
    }

    /** The memories retrieved for the query, sent with the queued {@code reads}; none without a query. */
    private List<HybridRetriever.Result> search(Request request, AgentScope agents, Instant now,
                                                MemoryReader.ReadBatch reads, Stages stages) {
        if (request.query() != null && !request.query().isBlank()) {
            return retriever.search(new HybridRetriever.Query(request.tenantId(), request.query(), request.sessionId(),
                    request.userId(), options.searched(), options.candidates(), now, request.asOf(), agents), reads, stages);
        }
        reads.run();
        stages.lap("search");
        return List.of();
    }

    /** The hits reweighted by {@link SpeakerMatch}, {@link SessionFocus}, then {@link SessionDiversity}, best first. */
    private List<HybridRetriever.Result> spread(String query, List<HybridRetriever.Result> hits) {
        List<HybridRetriever.Result> spoken = hits.isEmpty() || options.speakers().equals(SpeakerMatch.NONE) ? hits
                : withScores(hits, options.speakers().scores(query, hits.stream().map(h -> h.record().text()).toList(),
                scores(hits)));
        if (options.focus().equals(SessionFocus.NONE) && options.diversity().equals(SessionDiversity.NONE)) {
            return spoken;
        }
        List<HybridRetriever.Result> focused = withScores(spoken, options.focus().scores(sessions(spoken), scores(spoken)));
        return withScores(focused, options.diversity().scores(sessions(focused), scores(focused)));
    }

    private static List<String> sessions(List<HybridRetriever.Result> hits) {
        return hits.stream().map(h -> h.record().sessionId()).toList();
    }

    private static double[] scores(List<HybridRetriever.Result> hits) {
        return hits.stream().mapToDouble(HybridRetriever.Result::score).toArray();
    }

    /** The hits with new scores, best first. */
    private static List<HybridRetriever.Result> withScores(List<HybridRetriever.Result> hits, double[] scores) {
        List<HybridRetriever.Result> rescored = new ArrayList<>();
        for (int i = 0; i < scores.length; i++) {
            HybridRetriever.Result h = hits.get(i);
            rescored.add(new HybridRetriever.Result(h.record(), scores[i], h.cosine(), h.fused(), h.lexicalRank(), h.vectorRank()));
        }
        rescored.sort(Comparator.comparingDouble(HybridRetriever.Result::score).reversed());
        return rescored;
    }

    /**
     * The hits related to the query ({@link RelevanceFloor}) and the candidates they make, by id; the others as
     * exclusions that say why.
     */
    private record Relevance(List<HybridRetriever.Result> related, Map<String, ContextItem> candidates,
                             List<Excluded> unrelated) {
    }

    private Relevance relevance(List<HybridRetriever.Result> hits) {
        Relevance relevance = new Relevance(new ArrayList<>(), new LinkedHashMap<>(), new ArrayList<>());
        double bestCosine = hits.stream().mapToDouble(HybridRetriever.Result::cosine).max().orElse(0);
        for (HybridRetriever.Result r : hits) {
            if (options.floor().related(r.lexicalRank() != null, r.cosine(), bestCosine)) {
                relevance.related().add(r);
                relevance.candidates().put(r.record().id(), ContextItem.of(r.record(), r.score()));
            } else {
                relevance.unrelated().add(new Excluded(ContextItem.of(r.record(), r.score()), Section.MEMORIES,
                        String.format(Locale.ROOT, "score %.4f, %s, cosine %.3f below the floor %.3f", r.score(), UNRELATED,
                                r.cosine(), options.floor().minimumCosine(bestCosine))));
            }
        }
        return relevance;
    }

    /** The context with the unrelated memories among its exclusions. */
    private static AssembledContext withUnrelated(AssembledContext context, List<Excluded> unrelated) {
        if (unrelated.isEmpty()) {
            return context;
        }
        List<Excluded> excluded = new ArrayList<>(context.excluded());
        excluded.addAll(unrelated);
        return new AssembledContext(context.included(), excluded, context.tokensUsed(), context.budget(),
                context.degraded(), context.degradedReasons(), context.agentId());
    }

    /**
     * What the related hits bring with them, read in one round trip: the turns around each retrieved turn, scored by
     * {@link NeighbourTurns}, then the turns of each retrieved window ({@link WindowHits}); or, with a learned score
     * of every candidate, all of them scored by how they came ({@link LearnedTurns}).
     */
    private void addWhatHitsBring(Request request, Relevance relevance) {
        Map<String, Map<Integer, Double>> hitScores = options.neighbours().radius() > 0
                ? turnHitScores(relevance.related()) : Map.of(); // session -> position -> score
        Map<String, Set<Integer>> positions = new HashMap<>();
        hitScores.forEach((session, scores) -> positions.put(session, scores.keySet()));
        MemoryReader.ReadBatch reads = store.reads(request.tenantId());
        Supplier<List<MemoryRecord>> around = reads.turnsAround(positions, options.neighbours().radius());
        WindowHits windows = options.windows()
                ? WindowHits.queue(reads, request.tenantId(), relevance.related(), relevance.candidates()) : WindowHits.NONE;
        reads.run();
        if (options.turnRelevance() != null) {
            LearnedTurns.score(request.query(), relevance.related(), around.get(), windows, options.turnRelevance(),
                    relevance.candidates());
            return;
        }
        for (MemoryRecord turn : around.get()) {
            double score = options.neighbours().score(turn.position(), hitScores.get(turn.sessionId()));
            ContextItem existing = relevance.candidates().get(turn.id());
            if (score > 0 && (existing == null || existing.score() < score)) {
                relevance.candidates().put(turn.id(), ContextItem.of(turn, score));
            }
        }
        windows.open(request.query(), options.windowFocus(), relevance.candidates());
    }

    private static Map<String, Map<Integer, Double>> turnHitScores(List<HybridRetriever.Result> hits) {
        Map<String, Map<Integer, Double>> hitScores = new HashMap<>();
        for (HybridRetriever.Result r : hits) {
            if (r.record().type() == RecordType.TURN && r.record().sessionId() != null && r.record().position() != null) {
                hitScores.computeIfAbsent(r.record().sessionId(), s -> new HashMap<>())
                        .merge(r.record().position(), r.score(), Math::max);
            }
        }
        return hitScores;
    }

    /** The tenant's rules: from the cache while its documents' stamp holds, else read (without vectors) and cached. */
    private RuleCache.Rules rules(String tenantId, MemoryReader.Stamp stamp) {
        if (stamp.records() == 0) {
            return new RuleCache.Rules(List.of(), List.of());
        }
        Optional<RuleCache.Rules> cached = ruleCache.get(tenantId, stamp);
        if (cached.isPresent()) {
            return cached.get();
        }
        MemoryReader.ReadBatch reads = store.reads(tenantId);
        Supplier<List<MemoryRecord>> hard = reads.find(Map.of("tier", 1), Set.of(RecordType.INVARIANT), MAX_RULES, null, true);
        Supplier<List<MemoryRecord>> soft = reads.find(Map.of("tier", 2), Set.of(RecordType.INVARIANT), MAX_RULES, null, true);
        reads.run();
        RuleCache.Rules rules = new RuleCache.Rules(inDocumentOrder(hard.get()), inDocumentOrder(soft.get()));
        ruleCache.put(tenantId, stamp, rules);
        return rules;
    }

    private static List<MemoryRecord> inDocumentOrder(List<MemoryRecord> rules) {
        List<MemoryRecord> records = new ArrayList<>(rules);
        records.sort(Comparator.comparing((MemoryRecord r) -> r.agentId() == null ? "" : r.agentId())
                .thenComparing(r -> r.docPath() == null ? "" : r.docPath())
                .thenComparing(r -> r.position() == null ? 0 : r.position()));
        return List.copyOf(records);
    }

    private List<ContextItem> recentTail(List<MemoryRecord> newestFirst) {
        List<TailTurn> turns = new ArrayList<>();
        for (int i = newestFirst.size() - 1; i >= 0; i--) {
            turns.add(new TailTurn(newestFirst.get(i)));
        }
        int start = options.tail().start(turns, t -> t.record().tokens());
        return turns.subList(start, turns.size()).stream().map(t -> ContextItem.of(t.record(), 0)).toList();
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
}
