package io.engram.jobs.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.engram.jobs.compaction.TurnEvent;
import io.engram.jobs.ingest.Payloads;
import io.engram.jobs.store.StoreChange;
import io.engram.jobs.windows.TurnWindowFunction;
import io.engram.jobs.windows.WindowVectors;
import io.engram.model.embed.CachingEmbedder;
import io.engram.model.embed.Embedder;
import io.engram.model.embed.Embedding;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.embed.ForwardingEmbedder;
import io.engram.model.embed.MeanVector;
import io.engram.model.retrieval.MemoryRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The embedding operator on the pipeline's model, counting the texts that reach the model. */
class EmbeddingOperatorTest {

    private static Embedder model;
    private static final List<String> MODEL_TEXTS = new ArrayList<>();

    /** What reaches the model; the model itself stays open for every test. */
    private static final class CountedModel extends ForwardingEmbedder {
        CountedModel() {
            super(model);
        }

        @Override
        public List<Embedding> embedDocuments(List<String> texts) {
            MODEL_TEXTS.addAll(texts);
            return super.embedDocuments(texts);
        }

        @Override
        public void close() {
        }
    }

    @BeforeAll
    static void openModel() {
        model = EmbeddingModel.BGE_SMALL_EN_V15_Q.embedder();
    }

    @AfterAll
    static void closeModel() {
        model.close();
    }

    private static final List<TurnEvent> TURNS = List.of(
            new TurnEvent("acme", "s1", "ann", "t0", 0, "user", "Melanie: I painted a sunrise over the lake last week.", 1_000),
            new TurnEvent("acme", "s1", "ann", "t1", 1, "assistant", "Caroline: That sounds lovely, why a sunrise?", 2_000),
            new TurnEvent("acme", "s1", "ann", "t2", 2, "user", "Melanie: It reminds me of camping with my kids.", 3_000));

    /** A fresh operator with a fresh cache in front of the counted model; {@code changes} in one batch. */
    private static List<StoreChange> embed(List<StoreChange> changes) throws Exception {
        EmbedderFactory factory = () -> new CachingEmbedder(new CountedModel(), 1_000);
        try (var h = new OneInputStreamOperatorTestHarness<>(new EmbeddingOperator(factory,
                new EmbeddingOperator.Settings(64, Duration.ofSeconds(60), true)), StoreChange.SERIALIZER)) {
            h.setup(StoreChange.SERIALIZER);
            h.open();
            for (StoreChange c : changes) {
                h.processElement(new StreamRecord<>(c));
            }
            h.endInput();
            return h.extractOutputValues();
        }
    }

    private static MemoryRecord record(StoreChange change) {
        return ((StoreChange.Upsert) change).record();
    }

    @Test
    void aWindowAfterItsTurnsIsTheMeanOfTheirVectorsWithNoModelCallOfItsOwn() throws Exception {
        MODEL_TEXTS.clear();
        List<StoreChange> in = new ArrayList<>(TURNS.stream().map(Payloads::turnRecord).toList());
        StoreChange window = TurnWindowFunction.window(TURNS, WindowVectors.TURNS);
        in.add(window);
        List<StoreChange> out = embed(in);

        assertThat(MODEL_TEXTS).as("only the turns' texts, each once")
                .containsExactlyElementsOf(TURNS.stream().map(TurnEvent::text).toList());
        assertThat(out).extracting(c -> record(c).id()).containsExactlyElementsOf(in.stream().map(c -> record(c).id()).toList());
        List<Embedding> turnVectors = out.subList(0, 3).stream().map(c -> new Embedding(record(c).embedding(),
                record(c).tokens(), false, 1, false)).toList();
        MemoryRecord madeWindow = record(out.get(3));
        assertThat(madeWindow.embedding()).containsExactly(MeanVector.of(turnVectors));
        assertThat(madeWindow.text()).isEqualTo(record(window).text());
        assertThat(madeWindow.tokens()).isEqualTo(model.tokenCounter().count(madeWindow.text()))
                .isEqualTo(turnVectors.stream().mapToInt(Embedding::tokens).sum()); // newlines are no tokens of this model
        assertThat(((StoreChange.Upsert) out.get(3)).vectorOf()).as("the vector is set; nothing left to ask").isEmpty();
    }

    @Test
    void aWindowWhoseTurnsAreNotCachedEmbedsTheirTextsForTheSameVector() throws Exception {
        StoreChange window = TurnWindowFunction.window(TURNS, WindowVectors.TURNS);
        List<StoreChange> in = new ArrayList<>(TURNS.stream().map(Payloads::turnRecord).toList());
        in.add(window);
        float[] afterTurns = record(embed(in).get(3)).embedding();

        MODEL_TEXTS.clear();
        float[] alone = record(embed(List.of(window)).get(0)).embedding();
        assertThat(MODEL_TEXTS).containsExactlyElementsOf(TURNS.stream().map(TurnEvent::text).toList());
        for (int i = 0; i < alone.length; i++) {
            assertThat(alone[i]).isCloseTo(afterTurns[i], within(1e-5f));
        }
    }

    @Test
    void aModelEmbeddedWindowIsItsTextsEmbeddingAndOtherChangesPassInOrder() throws Exception {
        MODEL_TEXTS.clear();
        StoreChange window = TurnWindowFunction.window(TURNS, WindowVectors.MODEL);
        StoreChange forget = new StoreChange.Sweep("acme", io.engram.model.retrieval.RecordType.TURN, 1, 2);
        List<StoreChange> out = embed(List.of(window, forget));
        assertThat(MODEL_TEXTS).containsExactly(record(window).text());
        assertThat(out.get(1)).isEqualTo(forget);
        float[] own = model.embedDocument(record(window).text()).vector();
        float[] made = record(out.get(0)).embedding();
        for (int i = 0; i < own.length; i++) {
            assertThat(made[i]).isCloseTo(own[i], within(1e-5f));
        }
    }
}
