package io.engram.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.embed.Embedding;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.embed.OnnxEmbedder;
import io.engram.model.partition.DocumentNode;
import io.engram.model.partition.MarkdownPartitioner;
import io.engram.model.partition.PartitionConfig;
import io.engram.model.partition.TierAssignment;
import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.AssembledContext.Excluded;
import io.engram.model.retrieval.AssembledContext.Included;
import io.engram.model.retrieval.ContentOverlap;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.model.retrieval.RelevanceFloor;
import io.engram.model.retrieval.TurnWindows;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a context holds, on a small hand-made corpus with the default model: no bare heading, nothing twice,
 * nothing unrelated to the query (so it stops short of its budget), and the turn that answers a retrieved one.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class ContextQualityTest {

    private static final String TENANT = "quality";
    private static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");
    private static final String DOCUMENT = """
            # Travel desk

            ## Code Review

            Reviewers read the diff twice before approving.

            ## Bookings

            The travel desk books hotels through the Northwind portal.
            """;
    private static final List<String> TRIP = List.of(
            "I am vegetarian, so please find restaurants without meat.",
            "Noted, I will only suggest vegetarian restaurants.",
            "The hotel must have a lift because of my knee.",
            "I will filter the hotels on having a lift.",
            "Which airline do you prefer for the flight?",
            "KLM, always KLM.");
    private static final List<String> ELSEWHERE = List.of(
            "What time does the museum open on Sunday?",
            "The museum opens at ten on Sundays.",
            "Is it going to rain in Porto tomorrow?",
            "Light showers in the afternoon, bring an umbrella.");
    private static final String DUPLICATE_MEMORY = "I am vegetarian, so please find restaurants without meat.";

    private static OpenSearchMemoryStore store;
    private static OnnxEmbedder embedder;
    private static HybridRetriever retriever;
    private static List<MemoryRecord> documentRecords;

    @BeforeAll
    static void index(EmbeddedOpenSearch openSearch) throws Exception {
        EmbeddingModel model = EmbeddingModel.BGE_SMALL_EN_V15_Q;
        embedder = model.open();
        store = new OpenSearchMemoryStore(openSearch.httpUrl(), "engram-memories-context-quality", RetryPolicy.DEFAULT);
        store.ensureIndex(model.id(), embedder.dimension());
        List<MemoryRecord> records = new ArrayList<>();
        // the document as the pipeline stores it: PartitionedDocument.storedNodes()
        documentRecords = new ArrayList<>();
        for (DocumentNode node : new MarkdownPartitioner(PartitionConfig.defaults().withTokens(embedder.tokenCounter()))
                .partition(DOCUMENT).storedNodes()) {
            documentRecords.add(MemoryRecord.of("doc-" + node.index(), TENANT,
                            node.tier() == TierAssignment.LORE ? RecordType.LORE : RecordType.INVARIANT, node.text(), T0)
                    .embedding(embedder.embedDocument(node.text()).vector()).tier(node.tier())
                    .document("agent", "AGENTS.md", 1L).position(node.index()).tokens(node.tokens()).build());
        }
        records.addAll(documentRecords);
        records.addAll(turns("trip", TRIP, 0));
        records.addAll(turns("elsewhere", ELSEWHERE, 100));
        records.addAll(windows("trip", TRIP, 0));
        records.addAll(windows("elsewhere", ELSEWHERE, 100));
        Embedding memory = embedder.embedDocument(DUPLICATE_MEMORY);
        records.add(MemoryRecord.of(TENANT + "/diet", TENANT, RecordType.MEMORY, DUPLICATE_MEMORY, T0.plusSeconds(50))
                .embedding(memory.vector()).tokens(memory.tokens()).build());
        store.upsert(records);
        store.refresh();
        retriever = new HybridRetriever(store, embedder, HybridRetriever.Options.FOR_CONTEXT);
    }

    private static List<MemoryRecord> turns(String session, List<String> texts, int from) {
        List<MemoryRecord> turns = new ArrayList<>();
        List<Embedding> vectors = embedder.embedDocuments(texts);
        for (int i = 0; i < texts.size(); i++) {
            turns.add(MemoryRecord.of(TENANT + "/" + session + "/" + i, TENANT, RecordType.TURN, texts.get(i),
                            T0.plusSeconds(from + i)).embedding(vectors.get(i).vector()).session(session)
                    .role(i % 2 == 0 ? "user" : "assistant").position(i).tokens(vectors.get(i).tokens()).build());
        }
        return turns;
    }

    /** The windows the pipeline makes of a session's turns ({@link TurnWindows#DEFAULT}). */
    private static List<MemoryRecord> windows(String session, List<String> texts, int from) {
        TurnWindows w = TurnWindows.DEFAULT;
        List<MemoryRecord> windows = new ArrayList<>();
        for (int end = w.stride(); end <= texts.size(); end += w.stride()) {
            List<Integer> held = w.kept(java.util.stream.IntStream.range(0, end).boxed().toList());
            String text = TurnWindows.text(held.stream().map(texts::get).toList());
            Embedding vector = embedder.embedDocument(text);
            windows.add(MemoryRecord.of(TurnWindows.id(TENANT, session, String.valueOf(held.get(0)),
                            String.valueOf(end - 1)), TENANT, RecordType.WINDOW, text, T0.plusSeconds(from + end - 1))
                    .embedding(vector.vector()).session(session).provenance(held.stream().map(String::valueOf).toList(), 0)
                    .position(held.get(0)).tokens(vector.tokens()).build());
        }
        return windows;
    }

    @AfterAll
    static void close() {
        store.close();
        embedder.close();
    }

    private static AssembledContext assemble(ContextOptions options, String query) {
        return new ContextService(store, retriever, options).assemble(
                new ContextService.Request(TENANT, null, null, query, 2000), T0.plusSeconds(3600));
    }

    private static List<String> texts(AssembledContext context) {
        return context.included().stream().map(i -> i.item().text()).toList();
    }

    @Test
    void noHeadingStandsAlone() {
        assertThat(documentRecords).extracting(MemoryRecord::text)
                .noneMatch(text -> text.strip().startsWith("#") && !text.strip().contains("\n"))
                .contains("## Bookings\nThe travel desk books hotels through the Northwind portal.");
        // a titled node's tokens are its heading's plus its own: the model's tokenizer counts the same
        assertThat(documentRecords).allSatisfy(r -> assertThat(r.tokens())
                .isEqualTo(embedder.tokenCounter().count(r.text())));
        AssembledContext context = assemble(ContextOptions.DEFAULT, "how are hotels booked?");
        assertThat(texts(context)).contains("## Bookings\nThe travel desk books hotels through the Northwind portal.")
                .noneMatch(text -> text.strip().matches("#+ [^\\n]*"));
    }

    @Test
    void nothingGoesInTwice() {
        AssembledContext context = assemble(ContextOptions.DEFAULT, "vegetarian food and a hotel with a lift");
        List<String> included = texts(context);
        assertThat(included).filteredOn(DUPLICATE_MEMORY::equals).hasSize(1);
        for (int i = 0; i < included.size(); i++) {
            ContentOverlap before = new ContentOverlap();
            for (int j = 0; j < included.size(); j++) {
                if (j != i) {
                    before.add(included.get(j));
                }
            }
            assertThat(before.containment(included.get(i))).as(included.get(i)).isLessThan(0.8);
        }
        assertThat(context.excluded()).anySatisfy(e -> {
            assertThat(e.item().text()).isEqualTo(DUPLICATE_MEMORY);
            assertThat(e.reason()).contains("near-duplicate: 100%");
        });
        // switched off, the same sentence goes in twice: the check above is what removes it
        assertThat(texts(assemble(ContextOptions.DEFAULT.keepingDuplicates(),
                "vegetarian food and a hotel with a lift"))).filteredOn(DUPLICATE_MEMORY::equals).hasSize(2);
    }

    @Test
    void stopsShortOfTheBudgetWhenNothingMoreIsRelated() {
        AssembledContext context = assemble(ContextOptions.DEFAULT, "vegetarian food and a hotel with a lift");
        assertThat(texts(context)).contains(TRIP.get(0), TRIP.get(2), TRIP.get(3))
                .doesNotContainAnyElementsOf(ELSEWHERE)
                .doesNotContain("Reviewers read the diff twice before approving.",
                        "## Code Review\nReviewers read the diff twice before approving.");
        assertThat(context.tokensUsed()).isLessThan(context.budget() / 4);
        assertThat(context.excluded()).filteredOn(e -> ELSEWHERE.contains(e.item().text())).isNotEmpty()
                .allSatisfy(e -> assertThat(e.reason()).contains("unrelated"));
        // without the floor k-NN's unrelated records fill the budget's room
        assertThat(texts(assemble(ContextOptions.DEFAULT.withFloor(RelevanceFloor.NONE),
                "vegetarian food and a hotel with a lift"))).containsAll(ELSEWHERE);
    }

    @Test
    void aWindowBringsItsTurnsEachOnceAndNeverItself() {
        AssembledContext context = assemble(ContextOptions.DEFAULT.withoutNeighbours(), "which airline is preferred?");
        assertThat(context.included()).extracting(i -> i.item().type()).doesNotContain(RecordType.WINDOW);
        assertThat(context.included()).extracting(i -> i.item().id()).doesNotHaveDuplicates();
        // the trip's window holds the answer, which shares no word with the question
        assertThat(texts(context)).contains(TRIP.get(4), TRIP.get(5));
    }

    @Test
    void aRetrievedTurnBringsTheTurnThatAnswersIt() {
        String query = "which airline is preferred for flights?";
        assertThat(texts(assemble(ContextOptions.DEFAULT, query))).contains(TRIP.get(4), TRIP.get(5));
        // scored from its hit's score, the answer keeps at least the neighbour weight of it
        AssembledContext withNeighbours = assemble(ContextOptions.DEFAULT.handScored(), query);
        assertThat(texts(withNeighbours)).contains(TRIP.get(4), TRIP.get(5));
        Included answer = withNeighbours.included().stream().filter(i -> i.item().text().equals(TRIP.get(5)))
                .findFirst().orElseThrow();
        Included question = withNeighbours.included().stream().filter(i -> i.item().text().equals(TRIP.get(4)))
                .findFirst().orElseThrow();
        assertThat(answer.item().score()).isGreaterThanOrEqualTo(question.item().score() * 0.8 - 1e-9);
        // (without windows too: the window of the whole trip holds both)
        AssembledContext without = assemble(ContextOptions.DEFAULT.withoutNeighbours().withWindows(false), query);
        assertThat(texts(without)).contains(TRIP.get(4)).doesNotContain(TRIP.get(5));
        assertThat(without.excluded()).extracting(Excluded::item).extracting(i -> i.text()).contains(TRIP.get(5));
    }
}
