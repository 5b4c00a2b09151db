package io.engram.model.embed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Vectors equal langchain4j's own AllMiniLmL6V2EmbeddingModel, whatever the batch size. */
class OnnxEmbedderParityTest {

    private static List<String> texts;
    private static List<float[]> reference;

    @BeforeAll
    static void referenceVectors() {
        texts = ParityTexts.all();
        assertThat(texts).hasSize(50);
        AllMiniLmL6V2EmbeddingModel langchain4j = new AllMiniLmL6V2EmbeddingModel();
        reference = langchain4j.embedAll(texts.stream().map(TextSegment::from).toList()).content().stream()
                .map(e -> e.vector()).toList();
    }

    @AfterAll
    static void release() {
        reference = null;
    }

    @ParameterizedTest(name = "batch {0}")
    @ValueSource(ints = {1, 8, 64})
    void everyTextWithinLangchain4jsWindowMatches(int batch) {
        EmbedderOptions options = EmbedderOptions.defaults().withBatch(batch, Math.max(256, batch * 256));
        try (OnnxEmbedder embedder = EmbeddingModel.ALL_MINILM_L6_V2.open(options)) {
            List<Embedding> ours = embedder.embedDocuments(texts);
            int compared = 0;
            for (int i = 0; i < texts.size(); i++) {
                // langchain4j cuts at 128 tokens; ours reads up to the model's 256: compare within 128
                if (ours.get(i).tokens() + 2 <= 128) {
                    assertThat(Vectors.cosine(ours.get(i).vector(), reference.get(i)))
                            .as("text %d: %s", i, texts.get(i)).isGreaterThanOrEqualTo(0.99999);
                    compared++;
                }
            }
            assertThat(compared).isGreaterThanOrEqualTo(45);
        }
    }

    @ParameterizedTest(name = "batch {0}")
    @ValueSource(ints = {1, 8, 64})
    void withLangchain4jsWindowOfOneHundredTwentyEightEveryTextMatches(int batch) {
        EmbedderOptions options = EmbedderOptions.defaults()
                .withWindow(128, EmbedderOptions.LongTextMode.TRUNCATE).withBatch(batch, Math.max(128, batch * 128));
        try (OnnxEmbedder embedder = EmbeddingModel.ALL_MINILM_L6_V2.open(options)) {
            List<Embedding> ours = embedder.embedDocuments(texts);
            int truncated = 0;
            for (int i = 0; i < texts.size(); i++) {
                assertThat(Vectors.cosine(ours.get(i).vector(), reference.get(i)))
                        .as("text %d: %s", i, texts.get(i)).isGreaterThanOrEqualTo(0.99999);
                truncated += ours.get(i).truncated() ? 1 : 0;
            }
            assertThat(truncated).as("texts over the 128-token window").isGreaterThanOrEqualTo(2);
        }
    }
}
