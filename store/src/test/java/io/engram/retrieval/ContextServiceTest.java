package io.engram.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.engram.model.embed.EmbeddingModel;
import io.engram.model.embed.OnnxEmbedder;
import io.engram.model.retrieval.AssembledContext.Section;
import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.ContextAssembler;
import io.engram.model.retrieval.ContinuityTail;
import io.engram.model.retrieval.LearnedTurnRelevance;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.NeighbourTurns;
import io.engram.model.retrieval.RecordType;
import io.engram.model.retrieval.RelevanceFloor;
import io.engram.model.retrieval.SessionDiversity;
import io.engram.model.retrieval.SessionFocus;
import io.engram.model.retrieval.SpeakerMatch;
import io.engram.model.retrieval.TurnWindows;
import io.engram.model.retrieval.WindowTurnFocus;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.store.MemoryReader;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RecordIds;
import io.engram.store.Records;
import io.engram.store.RetryPolicy;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(EmbeddedServicesExtension.class)
class ContextServiceTest {

    private static final Instant NOW = Instant.parse("2026-11-02T10:00:00Z");
    private static final List<String> TEXTS = List.of(
            "The deploy key lives in the vault.", "Lunch is at noon on Fridays.", "The cat is called Miso.",
            "Caroline went hiking last weekend.", "Melanie painted a lake sunrise.", "The build uses Maven.",
            "Support group meets on Thursday evenings.", "Tokens are counted with the model's tokenizer.",
            "Canary queries are frozen per set.", "Summaries carry their provenance.");

    /** Eight turns about a pottery class; the last, "late bus", shares no word with a question about the class. */
    private static final List<String> POTTERY_CLASS = List.of("Ann: I signed up for the pottery class.", "Bob: Which day?",
            "Ann: Tuesdays, at the community centre near the river.", "Bob: Nice, I will join you.",
            "Ann: Bring an apron.", "Bob: Lunch first?", "Ann: The pottery class ends at nine.",
            "Bob: Then we take the late bus home.");

    private static OpenSearchMemoryStore store;
    private static OnnxEmbedder embedder;
    private static ContextService service;
    private static HybridRetriever retriever;

    @BeforeAll
    static void index(EmbeddedOpenSearch openSearch) {
        embedder = EmbeddingModel.ALL_MINILM_L6_V2.open();
        store = new OpenSearchMemoryStore(openSearch.httpUrl(), "engram-memories-context-test", RetryPolicy.DEFAULT);
        store.ensureIndex(EmbeddingModel.ALL_MINILM_L6_V2.id(), embedder.dimension());
        var vectors = embedder.embedDocuments(TEXTS);
        List<MemoryRecord> records = new ArrayList<>();
        // a session that alternates user / assistant for 40 turns of 20 tokens
        for (int seq = 0; seq < 40; seq++) {
            records.add(Records.turn("ctx", "s1", "ctx-turn-" + seq, seq % 2 == 0 ? "user" : "assistant", seq,
                    "turn " + seq + " " + TEXTS.get(seq % TEXTS.size()), 20, vectors.get(seq % TEXTS.size()).vector()));
        }
        records.add(Records.chunk("ctx", "ctx-hard-0", RecordType.INVARIANT, 1, "AGENTS.md", 1, 0, "- Always answer in JSON", vectors.get(0).vector()));
        records.add(Records.chunk("ctx", "ctx-hard-1", RecordType.INVARIANT, 1, "AGENTS.md", 1, 2, "- Never log secrets", vectors.get(1).vector()));
        records.add(Records.chunk("ctx", "ctx-soft-0", RecordType.INVARIANT, 2, "AGENTS.md", 1, 1, "You should be brief.", vectors.get(2).vector()));
        records.add(Records.chunk("ctx", "ctx-soft-1", RecordType.INVARIANT, 2, "AGENTS.md", 1, 3, "Prefer lists over prose.", vectors.get(3).vector()));
        records.add(Records.memory("ctx", "ctx-mem-vault", "The deploy key lives in the vault.", vectors.get(0).vector()));
        // tenants with the same texts: isolation must hold whatever the overlap
        for (int t = 0; t < 12; t++) {
            String tenant = "iso-" + t;
            for (int i = 0; i < TEXTS.size(); i++) {
                records.add(Records.memory(tenant, tenant + "-m" + i, TEXTS.get(i), vectors.get(i).vector()));
                records.add(Records.turn(tenant, "shared-session", tenant + "-t" + i, i % 2 == 0 ? "user" : "assistant", i,
                        TEXTS.get(i), 9, vectors.get(i).vector()));
            }
            records.add(Records.chunk(tenant, tenant + "-rule", RecordType.INVARIANT, 1, "AGENTS.md", 1, 0,
                    "- Rule of " + tenant, vectors.get(0).vector()));
        }
        store.upsert(records);
        store.refresh();
        retriever = new HybridRetriever(store, embedder, HybridRetriever.Options.DEFAULT);
        service = new ContextService(store, retriever, new ContextOptions(0.3, ContinuityTail.DEFAULT,
                ContextService.MEMORY_TYPES, 50, NeighbourTurns.NONE, ContextAssembler.KEEP_DUPLICATES, RelevanceFloor.NONE,
                SessionFocus.NONE, SessionDiversity.NONE, false, SpeakerMatch.NONE, WindowTurnFocus.NONE, null));
    }

    @AfterAll
    static void close() {
        store.close();
        embedder.close();
    }

    private static List<String> ids(AssembledContext c, Section section) {
        return c.included().stream().filter(i -> i.section() == section).map(i -> i.item().id()).toList();
    }

    /** {@code said} as turns t0, t1, … of the session, and a window over the first three. */
    private static void indexTurnsAndAWindowOverTheFirstThree(String tenant, String session, List<String> said) {
        var vectors = embedder.embedDocuments(said);
        List<MemoryRecord> records = new ArrayList<>();
        for (int seq = 0; seq < said.size(); seq++) {
            records.add(Records.turn(tenant, session, RecordIds.turn(tenant, session, "t" + seq), "user", seq, said.get(seq),
                    12, vectors.get(seq).vector()));
        }
        String window = TurnWindows.text(said.subList(0, 3));
        records.add(MemoryRecord.of(TurnWindows.id(tenant, session, "t0", "t2"), tenant, RecordType.WINDOW, window,
                        NOW.minusSeconds(60)).embedding(embedder.embedDocuments(List.of(window)).get(0).vector())
                .session(session).provenance(List.of("t0", "t1", "t2"), 0).position(0).tokens(36).build());
        store.upsert(records);
        store.refresh();
    }

    @Test
    void aWindowHitBringsEachOfItsTurnsOnceAndNeverItself() {
        List<String> said = List.of("Ann: I signed up for the pottery class.", "Bob: Which day?",
                "Ann: Tuesdays, at the community centre near the river.", "Bob: Nice, I will join you.");
        indexTurnsAndAWindowOverTheFirstThree("win", "w1", said);
        ContextOptions options = ContextOptions.DEFAULT.handScored().withNeighbours(NeighbourTurns.NONE);
        ContextService.Request request = new ContextService.Request("win", null, null, "which day is the pottery class?", 500);

        List<String> withWindows = ids(new ContextService(store, retriever, options.withWindows(true)).assemble(request, NOW),
                Section.MEMORIES);
        assertThat(withWindows).doesNotContain(TurnWindows.id("win", "w1", "t0", "t2")).doesNotHaveDuplicates()
                .contains(RecordIds.turn("win", "w1", "t0"), RecordIds.turn("win", "w1", "t1"), RecordIds.turn("win", "w1", "t2"));
        List<String> without = ids(new ContextService(store, retriever, options.withWindows(false)).assemble(request, NOW),
                Section.MEMORIES);
        assertThat(without).doesNotContain(TurnWindows.id("win", "w1", "t0", "t2"));
    }

    @Test
    void whatTheHitsBringIsReadInOneRoundTripAfterTheSearch() {
        indexTurnsAndAWindowOverTheFirstThree("trip", "p1", POTTERY_CLASS);
        AtomicInteger roundTrips = new AtomicInteger();
        MemoryReader counted = countingRoundTrips(store, roundTrips);
        ContextService both = new ContextService(counted, new HybridRetriever(counted, embedder, HybridRetriever.Options.DEFAULT),
                ContextOptions.DEFAULT.handScored().withNeighbours(new NeighbourTurns(1, 0.8)).withWindows(true));

        List<String> memories = ids(both.assemble(new ContextService.Request("trip", null, null,
                "which day is the pottery class?", 500), NOW), Section.MEMORIES);
        // "late bus" shares no word with the question: it comes as the neighbour of the turn after it
        assertThat(memories).contains(RecordIds.turn("trip", "p1", "t7"), RecordIds.turn("trip", "p1", "t0"),
                RecordIds.turn("trip", "p1", "t1"), RecordIds.turn("trip", "p1", "t2"))
                .doesNotContain(TurnWindows.id("trip", "p1", "t0", "t2")).doesNotHaveDuplicates();
        assertThat(roundTrips).as("BM25 with the tail and k-NN, side by side; then the neighbours with the window's turns")
                .hasValue(3);
    }

    @Test
    void aLearnedScoreOfEveryCandidateScoresEachTurnOnceByHowItCame() {
        indexTurnsAndAWindowOverTheFirstThree("learned", "l1", POTTERY_CLASS);
        // weights that see only whether a turn is a window's: its turns score sigma(2), any other sigma(-2)
        double[] weights = new double[LearnedTurnRelevance.FEATURES.size()];
        weights[LearnedTurnRelevance.FEATURES.indexOf("bias")] = -2;
        weights[LearnedTurnRelevance.FEATURES.indexOf("window")] = 4;
        ContextOptions options = ContextOptions.DEFAULT.withTurnRelevance(new LearnedTurnRelevance(weights));
        HybridRetriever learned = new HybridRetriever(store, embedder, HybridRetriever.Options.FOR_CONTEXT);

        List<AssembledContext.Included> memories = memories(new ContextService(store, learned, options)
                .assemble(new ContextService.Request("learned", null, null, "which day is the pottery class?", 500), NOW));
        double inWindow = 1 / (1 + Math.exp(-2)) / Math.pow(12, 0.7);
        double outside = 1 / (1 + Math.exp(2)) / Math.pow(12, 0.7);
        assertThat(memories.subList(0, 3)).extracting(i -> i.item().id()).containsExactlyInAnyOrder(
                RecordIds.turn("learned", "l1", "t0"), RecordIds.turn("learned", "l1", "t1"), RecordIds.turn("learned", "l1", "t2"));
        assertThat(memories.subList(0, 3)).extracting(i -> i.item().score()).containsOnly(inWindow);
        // "late bus" shares no word with the question: it comes as the neighbour of the turn before it
        assertThat(memories.subList(3, memories.size())).extracting(i -> i.item().id())
                .contains(RecordIds.turn("learned", "l1", "t6"), RecordIds.turn("learned", "l1", "t7"));
        assertThat(memories.subList(3, memories.size())).extracting(i -> i.item().score()).containsOnly(outside);
        assertThat(memories).extracting(i -> i.item().id()).doesNotHaveDuplicates()
                .doesNotContain(TurnWindows.id("learned", "l1", "t0", "t2"));

        assertThatThrownBy(() -> new ContextService(store, retriever, options)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs the learned ranking of the hits, not RESCORED");
    }

    /**
     * {@code store}, counting its round trips to OpenSearch: each batch of reads run, and each read asked of the
     * store itself.
     */
    private static MemoryReader countingRoundTrips(MemoryReader store, AtomicInteger runs) {
        return (MemoryReader) Proxy.newProxyInstance(MemoryReader.class.getClassLoader(), new Class<?>[] {MemoryReader.class},
                (proxy, method, args) -> {
                    Object answer = invoke(store, method, args);
                    if (!(answer instanceof MemoryReader.ReadBatch batch)) {
                        if (!method.getName().equals("embeddingModel")) {
                            runs.incrementAndGet();
                        }
                        return answer;
                    }
                    return Proxy.newProxyInstance(MemoryReader.class.getClassLoader(),
                            new Class<?>[] {MemoryReader.ReadBatch.class}, (p, m, a) -> {
                                if (m.getName().equals("run")) {
                                    runs.incrementAndGet();
                                }
                                return invoke(batch, m, a);
                            });
                });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Test
    void aWindowHitBringsItsTurnsThatMatterAtItsScoreAndTheOthersAfter() {
        List<String> said = List.of("Ann: Morning! How are you?", "Bob: Fine, a bit tired.",
                "Ann: I signed up for the pottery class.", "Bob: Which day is it on?",
                "Ann: The pottery class is on Tuesdays.", "Bob: Nice, I will join you.");
        List<MemoryRecord> records = new ArrayList<>();
        for (int seq = 0; seq < said.size(); seq++) {
            records.add(Records.turn("focus", "f1", RecordIds.turn("focus", "f1", "t" + seq), "user", seq, said.get(seq), 12,
                    embedder.embedDocuments(List.of(said.get(seq))).get(0).vector()));
        }
        String window = TurnWindows.text(said);
        records.add(MemoryRecord.of(TurnWindows.id("focus", "f1", "t0", "t5"), "focus", RecordType.WINDOW, window,
                        NOW.minusSeconds(60)).embedding(embedder.embedDocuments(List.of(window)).get(0).vector())
                .session("f1").provenance(List.of("t0", "t1", "t2", "t3", "t4", "t5"), 0).position(0).tokens(72).build());
        store.upsert(records);
        store.refresh();
        String query = "which day is the pottery class?";
        // turns are not searched here, only read as the window's: what scores them is the window and its focus
        ContextOptions options = ContextOptions.DEFAULT.handScored().withNeighbours(NeighbourTurns.NONE)
                .withMemoryTypes(Set.of(RecordType.MEMORY));
        double windowScore = retriever.search(new HybridRetriever.Query("focus", query, null, null,
                Set.of(RecordType.MEMORY, RecordType.WINDOW), 50, NOW)).get(0).score();
        ContextService focused = new ContextService(store, retriever, options.withWindowFocus(new WindowTurnFocus(2, 0.25)));
        ContextService whole = new ContextService(store, retriever, options.withWindowFocus(WindowTurnFocus.NONE));
        ContextService.Request roomy = new ContextService.Request("focus", null, null, query, 500);

        List<AssembledContext.Included> all = memories(focused.assemble(roomy, NOW));
        // t2 and t4 hold "pottery" and "class"; the four others none, so they follow at a quarter of the score
        assertThat(all).extracting(i -> i.item().id()).containsExactly(RecordIds.turn("focus", "f1", "t2"),
                RecordIds.turn("focus", "f1", "t4"), RecordIds.turn("focus", "f1", "t0"), RecordIds.turn("focus", "f1", "t1"),
                RecordIds.turn("focus", "f1", "t3"), RecordIds.turn("focus", "f1", "t5"));
        assertThat(all).extracting(i -> i.item().score()).containsExactly(windowScore, windowScore, windowScore * 0.25,
                windowScore * 0.25, windowScore * 0.25, windowScore * 0.25);
        assertThat(memories(whole.assemble(roomy, NOW))).extracting(i -> i.item().score()).containsOnly(windowScore);

        // a budget of two turns: the two that answer, where the whole window would spend it on its first two
        ContextService.Request tight = new ContextService.Request("focus", null, null, query,
                all.get(0).tokens() + all.get(1).tokens());
        assertThat(memories(focused.assemble(tight, NOW))).extracting(i -> i.item().id())
                .containsExactly(RecordIds.turn("focus", "f1", "t2"), RecordIds.turn("focus", "f1", "t4"));
        assertThat(memories(whole.assemble(tight, NOW))).extracting(i -> i.item().id())
                .containsExactly(RecordIds.turn("focus", "f1", "t0"), RecordIds.turn("focus", "f1", "t1"));
    }

    private static List<AssembledContext.Included> memories(AssembledContext c) {
        return c.included().stream().filter(i -> i.section() == Section.MEMORIES).toList();
    }

    @Test
    void anAlternatingSessionKeepsItsTailAtTheTargetAndTheRestFollowsTheTiers() {
        AssembledContext c = service.assemble(new ContextService.Request("ctx", "s1", "user-1", "where is the deploy key?", 400), NOW);
        assertThat(ids(c, Section.HARD_RULES)).containsExactly("ctx-hard-0", "ctx-hard-1");
        // 128-token target / 20 tokens a turn: the last 6 turns, starting on a user turn; not the whole session
        assertThat(ids(c, Section.RECENT_TAIL)).containsExactly("ctx-turn-34", "ctx-turn-35", "ctx-turn-36",
                "ctx-turn-37", "ctx-turn-38", "ctx-turn-39");
        assertThat(ids(c, Section.SOFT_RULES)).containsExactly("ctx-soft-0", "ctx-soft-1");
        assertThat(ids(c, Section.MEMORIES)).contains("ctx-mem-vault");
        assertThat(ids(c, Section.MEMORIES)).doesNotContain("ctx-turn-39");
        assertThat(c.tokensUsed()).isLessThanOrEqualTo(400);
        assertThat(c.degraded()).isFalse();
    }

    @Test
    void aBudgetSmallerThanTheRulesAndTheTailIsKeptAndTheAnswerSaysWhatWasLeftOut() {
        AssembledContext c = service.assemble(new ContextService.Request("ctx", "s1", null, "vault", 10), NOW);
        assertThat(c.tokensUsed()).isLessThanOrEqualTo(10);
        assertThat(c.degraded()).isTrue();
        assertThat(ids(c, Section.HARD_RULES)).containsExactly("ctx-hard-0", "ctx-hard-1"); // 9 tokens: they fit
        assertThat(c.degradedReasons()).singleElement().asString()
                .contains("the recent tail takes 125 tokens: its newest 0 of 6 turns fit the 1 tokens left");
        assertThat(c.excluded()).filteredOn(e -> e.section() == Section.RECENT_TAIL).hasSize(6);
        assertThat(ids(c, Section.MEMORIES)).isEmpty();

        AssembledContext smaller = service.assemble(new ContextService.Request("ctx", "s1", null, "vault", 5), NOW);
        assertThat(smaller.tokensUsed()).isLessThanOrEqualTo(5);
        assertThat(smaller.degradedReasons().get(0)).contains("hard rules take 9 tokens, over the budget of 5");
        assertThat(smaller.excluded()).filteredOn(e -> e.section() == Section.HARD_RULES).isNotEmpty();
    }

    @Test
    void rulesAreReadOncePerDocumentVersionAndANewVersionShowsAtOnce() {
        float[] v = embedder.embedQuery("rules").vector();
        store.upsert(List.of(Records.chunk("rules", "rules-v1-0", RecordType.INVARIANT, 1, "AGENTS.md", 1, 0, "- Always answer briefly", v),
                Records.chunk("rules", "rules-v1-1", RecordType.INVARIANT, 2, "AGENTS.md", 1, 1, "Prefer plain words.", v)));
        store.refresh();
        ContextService.Request request = new ContextService.Request("rules", null, null, "anything", 500);
        assertThat(texts(service.assemble(request, NOW), Section.HARD_RULES)).containsExactly("- Always answer briefly");

        // a rule rewritten in place, its document version, tier, position and length unchanged: nothing a
        // pipeline writes (a document changes by version), so the cached rules stand
        store.upsert(List.of(Records.chunk("rules", "rules-v1-0", RecordType.INVARIANT, 1, "AGENTS.md", 1, 0, "- Always answer slowly", v)));
        store.refresh();
        assertThat(texts(service.assemble(request, NOW), Section.HARD_RULES)).containsExactly("- Always answer briefly");

        store.upsert(List.of(Records.chunk("rules", "rules-v2-0", RecordType.INVARIANT, 1, "AGENTS.md", 2, 0, "- Never guess", v),
                Records.chunk("rules", "rules-v2-1", RecordType.INVARIANT, 2, "AGENTS.md", 2, 1, "Cite your sources.", v)));
        store.refresh();
        AssembledContext both = service.assemble(request, NOW); // the new version is written, the old one not yet deleted
        assertThat(texts(both, Section.HARD_RULES)).containsExactlyInAnyOrder("- Always answer slowly", "- Never guess");
        store.deleteOlderDocumentVersions("rules", "agent-1", "AGENTS.md", 2);
        AssembledContext replaced = service.assemble(request, NOW);
        assertThat(texts(replaced, Section.HARD_RULES)).containsExactly("- Never guess");
        assertThat(texts(replaced, Section.SOFT_RULES)).containsExactly("Cite your sources.");

        ContextService fresh = new ContextService(store, retriever, ContextOptions.DEFAULT.handScored());
        assertThat(fresh.cachedRules()).isEqualTo(new ContextService.CachedRules(0, 0));
        fresh.assemble(request, NOW);
        assertThat(fresh.cachedRules()).as("the tenant's two rules, for its gauge").isEqualTo(new ContextService.CachedRules(1, 2));
    }

    private static List<String> texts(AssembledContext c, Section section) {
        return c.included().stream().filter(i -> i.section() == section).map(i -> i.item().text()).toList();
    }

    @Test
    void noQueryPathReturnsAnotherTenantsRecords() {
        Random random = new Random(42);
        for (int round = 0; round < 60; round++) {
            String tenant = "iso-" + random.nextInt(12);
            String query = TEXTS.get(random.nextInt(TEXTS.size())).replace(".", "");
            for (HybridRetriever.Result r : retriever.search(new HybridRetriever.Query(tenant, query, "shared-session",
                    "user-1", ContextService.MEMORY_TYPES, 20, NOW))) {
                assertThat(r.record().tenantId()).isEqualTo(tenant);
                assertThat(r.record().id()).startsWith(tenant + "-");
            }
            AssembledContext c = service.assemble(new ContextService.Request(tenant, "shared-session", "user-1", query, 2000), NOW);
            assertThat(c.included()).isNotEmpty().allSatisfy(i -> assertThat(i.item().id()).startsWith(tenant + "-"));
            assertThat(c.excluded()).allSatisfy(e -> assertThat(e.item().id()).startsWith(tenant + "-"));
        }
    }
}
