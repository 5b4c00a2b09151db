package io.engram.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.engram.model.embed.EmbeddingModel;
import io.engram.model.embed.OnnxEmbedder;
import io.engram.model.retrieval.LearnedRelevance;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.store.MemoryStore;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.Records;
import io.engram.store.RetryPolicy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** On a small hand-made corpus, BM25 alone and vectors alone each miss one query; hybrid finds both. */
@ExtendWith(EmbeddedServicesExtension.class)
class HybridRetrieverTest {

    static final String TENANT = "hybrid";
    static final String LEXICAL_QUERY = "E4711";
    static final String SEMANTIC_QUERY = "How does she feel about her dog?";
    static final List<String[]> CORPUS = List.of(
            new String[] {"code", "Ticket 88 from Tuesday's maintenance window: node seven in rack B was rebooted twice and logged E4711."},
            new String[] {"dog", "Melanie adores her golden retriever and walks him every single morning."},
            new String[] {"d1", "Error codes such as E1234 and E5678 are listed in the runbook with their fixes."},
            new String[] {"d2", "Status code E2000 means the request was accepted and queued."},
            new String[] {"d3", "How does she feel about her tax return? She does not say how she feels about it."},
            new String[] {"d4", "Does she feel the compiler is slow? How about her build times, does she care?"},
            new String[] {"d5", "Release notes: rollout blocked by a failing health check on several nodes."},
            new String[] {"d6", "Caroline's cat sleeps on the keyboard when she writes code."});

    private static OpenSearchMemoryStore store;
    private static OnnxEmbedder embedder;

    @BeforeAll
    static void index(EmbeddedOpenSearch openSearch) {
        embedder = EmbeddingModel.ALL_MINILM_L6_V2.open();
        store = new OpenSearchMemoryStore(openSearch.httpUrl(), "engram-memories-hybrid-test", RetryPolicy.DEFAULT);
        store.ensureIndex(EmbeddingModel.ALL_MINILM_L6_V2.id(), embedder.dimension());
        List<MemoryRecord> records = new ArrayList<>();
        List<String> texts = CORPUS.stream().map(c -> c[1]).toList();
        var vectors = embedder.embedDocuments(texts);
        for (int i = 0; i < CORPUS.size(); i++) {
            records.add(Records.memory(TENANT, CORPUS.get(i)[0], CORPUS.get(i)[1], vectors.get(i).vector()));
        }
        store.upsert(records);
        store.refresh();
    }

    @AfterAll
    static void close() {
        store.close();
        embedder.close();
    }

    private static String topBm25(String query) {
        return store.bm25(TENANT, query, 5, Set.of()).get(0).record().id();
    }

    private static String topVector(String query) {
        return store.knn(TENANT, embedder.embedQuery(query).vector(), 5, Set.of()).get(0).record().id();
    }

    private static String topHybrid(String query) {
        HybridRetriever retriever = new HybridRetriever(store, embedder, HybridRetriever.Options.DEFAULT);
        return retriever.search(new HybridRetriever.Query(TENANT, query, null, null, Set.of(), 5,
                Instant.parse("2026-11-02T10:00:00Z"))).get(0).record().id();
    }

    @Test
    void eachSingleRetrieverFailsOneQuery() {
        assertThat(topBm25(LEXICAL_QUERY)).isEqualTo("code");
        assertThat(topBm25(SEMANTIC_QUERY)).isNotEqualTo("dog");
        assertThat(topVector(SEMANTIC_QUERY)).isEqualTo("dog");
        assertThat(topVector(LEXICAL_QUERY)).isNotEqualTo("code");
    }

    @Test
    void aLearnedRankingScoresEveryCandidateOfBothListsAtTheirDepthAndKeepsK() {
        Instant now = Instant.parse("2026-11-02T10:00:00Z");
        HybridRetriever learned = new HybridRetriever(store, embedder,
                HybridRetriever.Options.DEFAULT.withCandidateDepth(2).learnedBy(LearnedRelevance.NONE));
        Set<String> union = new HashSet<>();
        store.bm25(TENANT, SEMANTIC_QUERY, 2, Set.of()).forEach(h -> union.add(h.record().id()));
        store.knn(TENANT, embedder.embedQuery(SEMANTIC_QUERY).vector(), 2, Set.of()).forEach(h -> union.add(h.record().id()));

        // asking for more than the depth does not deepen the lists: the union comes back, nothing else
        List<HybridRetriever.Result> all = learned.search(new HybridRetriever.Query(TENANT, SEMANTIC_QUERY, null, null,
                Set.of(), 10, now));
        assertThat(all).extracting(r -> r.record().id()).containsExactlyInAnyOrderElementsOf(union);
        // without weights every hit is as likely as the next, so the fewest tokens come first
        List<HybridRetriever.Result> first = learned.search(new HybridRetriever.Query(TENANT, SEMANTIC_QUERY, null, null,
                Set.of(), 1, now));
        MemoryRecord shortest = all.stream().map(HybridRetriever.Result::record)
                .min(Comparator.comparingInt(MemoryRecord::tokens)).orElseThrow();
        assertThat(first).singleElement().satisfies(r -> {
            assertThat(r.record().id()).isEqualTo(shortest.id());
            assertThat(r.score()).isEqualTo(0.5 / shortest.tokens());
        });
    }

    @Test
    void hybridReturnsThePlantedRecordFirstForBoth() {
        assertThat(topHybrid(LEXICAL_QUERY)).isEqualTo("code");
        assertThat(topHybrid(SEMANTIC_QUERY)).isEqualTo("dog");
    }

    @Test
    void theCallersReadsRunWithTheSearchAndTheirFailureIsThrown(EmbeddedOpenSearch openSearch) {
        MemoryStore.ReadBatch others = store.reads(TENANT);
        var everything = others.find(Map.of(), Set.of(), 20, null, true);
        HybridRetriever retriever = new HybridRetriever(store, embedder, HybridRetriever.Options.DEFAULT);
        Stages stages = new Stages();
        List<HybridRetriever.Result> hits = retriever.search(new HybridRetriever.Query(TENANT, SEMANTIC_QUERY, null, null,
                Set.of(), 5, Records.T0), others, stages);
        assertThat(hits.get(0).record().id()).isEqualTo("dog");
        assertThat(everything.get()).hasSize(CORPUS.size()); // ran with BM25, before search returned
        assertThat(stages.nanos()).containsOnlyKeys("embed", "search", "rank");

        // a store over an index that does not exist: every search of the batch fails, and says so
        try (OpenSearchMemoryStore missing = new OpenSearchMemoryStore(openSearch.httpUrl(), "engram-memories-absent",
                RetryPolicy.DEFAULT)) {
            HybridRetriever broken = new HybridRetriever(missing, embedder, HybridRetriever.Options.DEFAULT);
            assertThatThrownBy(() -> broken.search(new HybridRetriever.Query(TENANT, SEMANTIC_QUERY, null, null, Set.of(), 5,
                    Records.T0))).isInstanceOf(IllegalStateException.class).hasMessageContaining("index_not_found");
        }
    }
}
