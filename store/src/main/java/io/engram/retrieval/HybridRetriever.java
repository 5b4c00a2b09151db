package io.engram.retrieval;

import io.engram.model.embed.Embedder;
import io.engram.model.embed.Vectors;
import io.engram.model.retrieval.AgentScope;
import io.engram.model.retrieval.LearnedRelevance;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.MemoryScore;
import io.engram.model.retrieval.RankFusion;
import io.engram.model.retrieval.RecordType;
import io.engram.model.retrieval.RelevanceFeedback;
import io.engram.model.tokens.TokenCounter;
import io.engram.store.MemoryReader;
import io.engram.store.MemoryReader.ScoredRecord;
import java.time.Duration;
import io.engram.model.facts.Supersession;
import io.engram.model.facts.Validity;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * Hybrid retrieval for one tenant: BM25 and filtered k-NN candidates from OpenSearch, fused by reciprocal rank
 * fusion, then re-scored by {@link MemoryScore} (similarity, recency by
 * scope, scope weight, summary quality). The formulas live in shared-model; this class only fetches.
 */
public final class HybridRetriever {

    /**
     * What orders the final list: the fused score alone, or the fused score (scaled to [0, 1] by the best
     * candidate's) times the brief's re-scoring, so recency, scope and summary quality reorder candidates
     * without discarding what BM25 found; or {@link LearnedRelevance} over every candidate either retriever returned,
     * before the list is cut to the query's k (so a hit fusion ranks low can still make it).
     */
    public enum Ranking { FUSED, RESCORED, LEARNED }

    /**
     * @param candidateDepth how many candidates each retriever returns
     * @param rrfK           the constant of the reciprocal rank fusion of the two lists
     * @param ranking        fused or re-scored order
     * @param score          the re-scoring weights
     * @param feedback       the query's vector moved toward its best hits' and searched again, or not
     * @param learned        the weights of the {@link Ranking#LEARNED} ranking
     */
    public record Options(int candidateDepth, int rrfK, Ranking ranking, MemoryScore score, RelevanceFeedback feedback,
                          LearnedRelevance learned) {
        /** What {@code POST /v1/search} ranks by: RRF's usual k = 60 over 50 candidates from each retriever. */
        public static final Options DEFAULT = new Options(50, RankFusion.DEFAULT_RRF_K, Ranking.RESCORED,
                MemoryScore.DEFAULT, RelevanceFeedback.NONE, LearnedRelevance.NONE);
        /**
         * What a context's candidates are found by: the same 50 from each retriever fused with k = 20 (chosen on
         * LoCoMo conversations left out in turn, docs/benchmarks.md, "Where the evidence is lost"), then every one
         * of them ranked by {@link LearnedRelevance#DEFAULT}, whose probabilities the context's own learned score
         * builds on ({@code ContextOptions.turnRelevance}; docs/benchmarks.md, "What a learned score of every
         * candidate finds"). A search keeps {@link #DEFAULT}: its first hit is what a caller reads.
         */
        public static final Options FOR_CONTEXT = DEFAULT.withRrfK(20).learnedBy(LearnedRelevance.DEFAULT);

        /** These options ordered by {@code other} instead. */
        public Options withRanking(Ranking other) {
            return new Options(candidateDepth, rrfK, other, score, feedback, learned);
        }

        /** These options fusing with the constant {@code k} instead. */
        public Options withRrfK(int k) {
            return new Options(candidateDepth, k, ranking, score, feedback, learned);
        }

        /** These options with {@code depth} candidates from each retriever. */
        public Options withCandidateDepth(int depth) {
            return new Options(depth, rrfK, ranking, score, feedback, learned);
        }

        /** These options re-scoring with {@code other} weights. */
        public Options withScore(MemoryScore other) {
            return new Options(candidateDepth, rrfK, ranking, other, feedback, learned);
        }

        /** These options with {@code other} relevance feedback. */
        public Options withFeedback(RelevanceFeedback other) {
            return new Options(candidateDepth, rrfK, ranking, score, other, learned);
        }

        /** These options ranking every candidate by {@code weights} ({@link Ranking#LEARNED}). */
        public Options learnedBy(LearnedRelevance weights) {
            return new Options(candidateDepth, rrfK, Ranking.LEARNED, score, feedback, weights);
        }
    }

    /**
     * A search for one tenant; {@code asOf}, when not null, asks for the memories valid then instead of now;
     * {@code agents}, when not null, keeps the records it sees ({@link AgentScope#sees}).
     */
    public record Query(String tenantId, String text, String sessionId, String userId, Set<RecordType> types, int k,
                        Instant now, Instant asOf, AgentScope agents) {

        /** A search of every agent's records. */
        public Query(String tenantId, String text, String sessionId, String userId, Set<RecordType> types, int k,
                     Instant now, Instant asOf) {
            this(tenantId, text, sessionId, userId, types, k, now, asOf, null);
        }

        /** A search of what is valid now. */
        public Query(String tenantId, String text, String sessionId, String userId, Set<RecordType> types, int k,
                     Instant now) {
            this(tenantId, text, sessionId, userId, types, k, now, null);
        }

        /** What the search keeps: what holds at {@code asOf}, or now. */
        public Validity validity() {
            return Validity.at(asOf, now);
        }
    }

    /**
     * One result with how it was found.
     *
     * @param lexicalRank 1-based BM25 rank, or null if BM25 did not return it
     * @param vectorRank  1-based k-NN rank, or null
     */
    public record Result(MemoryRecord record, double score, double cosine, double fused, Integer lexicalRank,
                         Integer vectorRank) {
    }

    private final MemoryReader store;
    private final Embedder embedder;
    private final Options options;
    /** Sends the lexical batch while the caller's thread embeds; idle threads end after a minute. */
    private final ExecutorService sender = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "engram-read-sender");
        t.setDaemon(true);
        return t;
    });

    public HybridRetriever(MemoryReader store, Embedder embedder, Options options) {
        this.store = store;
        this.embedder = embedder;
        this.options = options;
    }

    /** How this retriever ranks. */
    Options options() {
        return options;
    }

    public List<Result> search(Query query) {
        return search(query, new Stages());
    }

    /** The tokenizer of the model that embeds (and counted the stored texts), for what a context adds to them. */
    public TokenCounter tokenCounter() {
        return embedder.tokenCounter();
    }

    /** {@link #search(Query)}, timing its stages into {@code stages}. */
    public List<Result> search(Query query, Stages stages) {
        return search(query, store.reads(query.tenantId(), query.validity(), query.agents()), stages);
    }

    /**
     * {@link #search(Query)}, sending {@code others} — the caller's reads of the same tenant, queued, not yet run —
     * with the BM25 search: that batch leaves at once, from another thread, while this one embeds the query and
     * then sends k-NN, so that the model and both searches overlap instead of queueing (BM25 needs no vector).
     * {@code others} has run when this returns, or its failure is thrown; it keeps what the query's validity and agents
     * keep, as a batch of {@link MemoryReader#reads(String, Validity, AgentScope)} for them does.
     */
    public List<Result> search(Query query, MemoryReader.ReadBatch others, Stages stages) {
        // a learned ranking chooses the k among every candidate; the others ask each retriever for k at least
        int depth = options.ranking() == Ranking.LEARNED ? options.candidateDepth()
                : Math.max(query.k(), options.candidateDepth());
        Supplier<List<ScoredRecord>> lexical = others.bm25(query.text(), depth, query.types());
        CompletableFuture<Void> sent = CompletableFuture.runAsync(others::run, sender);
        float[] vector;
        List<ScoredRecord> semantic;
        try {
            vector = embedder.embedQuery(query.text()).vector();
            stages.lap("embed");
            MemoryReader.ReadBatch knn = store.reads(query.tenantId(), query.validity(), query.agents());
            Supplier<List<ScoredRecord>> nearest = knn.knn(vector, depth, query.types());
            knn.run();
            semantic = nearest.get();
        } finally {
            awaitSent(sent); // never return, nor fail, with the caller's batch still in flight
        }
        stages.lap("search");
        List<Result> ranked = rank(query, vector, lexical.get(), semantic);
        stages.lap("rank");
        if (options.feedback().on()) {
            float[] moved = options.feedback().expand(vector, ranked.stream().map(r -> r.record().embedding())
                    .filter(Objects::nonNull).limit(options.feedback().hits()).toList());
            MemoryReader.ReadBatch again = store.reads(query.tenantId(), query.validity(), query.agents());
            Supplier<List<ScoredRecord>> nearest = again.knn(moved, depth, query.types());
            again.run();
            ranked = rank(query, moved, lexical.get(), nearest.get());
            stages.lap("feedback");
        }
        return ranked;
    }

    private static void awaitSent(CompletableFuture<Void> sent) {
        try {
            sent.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }

    private List<Result> rank(Query query, float[] vector, List<ScoredRecord> lexical, List<ScoredRecord> semantic) {
        Candidates c = Candidates.of(lexical, semantic, query.validity().at());
        Map<String, Double> fused = RankFusion.reciprocalRank(List.of(c.lexicalIds(), c.vectorIds()), options.rrfK());

        double best = fused.values().stream().mapToDouble(Double::doubleValue).max().orElse(1);
        List<Result> results = new ArrayList<>();
        for (Map.Entry<String, Double> candidate : fused.entrySet()) {
            MemoryRecord r = c.records().get(candidate.getKey());
            // k-NN scored its hits' cosines; a hit of BM25 alone brought its vector
            double cosine = c.cosines().containsKey(r.id()) ? c.cosines().get(r.id())
                    : r.embedding() == null ? 0 : Vectors.dot(vector, r.embedding());
            double age = Math.max(0, Duration.between(r.ts(), query.now()).toMillis() / 1000.0);
            MemoryScore.Scope scope = MemoryScore.Scope.of(r.sessionId(), r.userId(), query.sessionId(), query.userId());
            double score = options.score().score(cosine, age, scope,
                    r.type() == RecordType.SUMMARY ? r.decayRate() : null);
            double relevance = best > 0 ? candidate.getValue() / best : 0;
            results.add(new Result(r, options.ranking() == Ranking.FUSED ? candidate.getValue() : relevance * score,
                    cosine, candidate.getValue(), c.lexicalRank().get(r.id()), c.vectorRank().get(r.id())));
        }
        if (options.ranking() == Ranking.LEARNED) {
            results = learned(query.text(), results);
        }
        results.sort(Comparator.comparingDouble(Result::score).reversed());
        return results.subList(0, Math.min(query.k(), results.size()));
    }

    /**
     * Both retrievers' hits by id, with their ranks (1 = first) and k-NN's cosines. A hit that another hit supersedes
     * at the read's instant is left out: a new version is searchable before its predecessor's mark, and the read
     * keeps only what holds among what it found ({@link Supersession#holding}).
     */
    private record Candidates(Map<String, MemoryRecord> records, List<String> lexicalIds, List<String> vectorIds,
                              Map<String, Integer> lexicalRank, Map<String, Integer> vectorRank,
                              Map<String, Double> cosines) {

        static Candidates of(List<ScoredRecord> lexical, List<ScoredRecord> semantic, Instant at) {
            List<MemoryRecord> found = new ArrayList<>();
            lexical.forEach(s -> found.add(s.record()));
            semantic.forEach(s -> found.add(s.record()));
            Set<String> holding = new HashSet<>();
            Supersession.holding(found, at).forEach(r -> holding.add(r.id()));
            Candidates c = new Candidates(new LinkedHashMap<>(), new ArrayList<>(), new ArrayList<>(), new HashMap<>(),
                    new HashMap<>(), new HashMap<>());
            for (int i = 0; i < lexical.size(); i++) {
                c.add(lexical.get(i), i + 1, c.lexicalIds(), c.lexicalRank(), holding);
            }
            for (int i = 0; i < semantic.size(); i++) {
                if (c.add(semantic.get(i), i + 1, c.vectorIds(), c.vectorRank(), holding)) {
                    c.cosines().put(semantic.get(i).record().id(), semantic.get(i).score());
                }
            }
            return c;
        }

        private boolean add(ScoredRecord hit, int rank, List<String> ids, Map<String, Integer> ranks, Set<String> holding) {
            MemoryRecord r = hit.record();
            if (!holding.contains(r.id())) {
                return false;
            }
            records.putIfAbsent(r.id(), r);
            ids.add(r.id());
            ranks.put(r.id(), rank);
            return true;
        }
    }

    /** The results scored by the learned ranking. */
    private List<Result> learned(String query, List<Result> results) {
        double[] scores = options.learned().scores(query, results.stream().map(HybridRetriever::hit).toList());
        List<Result> learned = new ArrayList<>(results.size());
        for (int i = 0; i < scores.length; i++) {
            Result r = results.get(i);
            learned.add(new Result(r.record(), scores[i], r.cosine(), r.fused(), r.lexicalRank(), r.vectorRank()));
        }
        return learned;
    }

    /** A result as the learned ranking describes it. */
    public static LearnedRelevance.Hit hit(Result r) {
        return new LearnedRelevance.Hit(r.record().text(), r.record().sessionId(), r.record().type() == RecordType.WINDOW,
                r.lexicalRank(), r.vectorRank(), r.cosine(), r.fused(), r.record().tokens());
    }
}
