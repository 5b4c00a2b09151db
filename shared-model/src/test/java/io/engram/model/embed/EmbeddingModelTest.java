package io.engram.model.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class EmbeddingModelTest {

    @Test
    void modelsAreNamedByTheirIdAndAnUnknownIdListsTheKnownOnes() {
        assertThat(EmbeddingModel.ofId(" BGE-small-en-v1.5-q ")).isEqualTo(EmbeddingModel.BGE_SMALL_EN_V15_Q);
        assertThatThrownBy(() -> EmbeddingModel.ofId("e5-large")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown embedding model 'e5-large'")
                .hasMessageContaining("all-minilm-l6-v2, all-minilm-l6-v2-q, bge-small-en-v1.5-q");
    }

    @Test
    void bgeSmallEmbedsUnitVectorsWithItsQueryInstructionAndFindsTheRelatedPassage() {
        try (OnnxEmbedder bge = EmbeddingModel.BGE_SMALL_EN_V15_Q.open()) {
            assertThat(bge.dimension()).isEqualTo(EmbeddingModel.DIMENSION);
            List<Embedding> passages = bge.embedDocuments(List.of(
                    "The hotel has a lift to every floor.", "The museum opens at ten on Sundays."));
            Embedding query = bge.embedQuery("a hotel with an elevator");
            for (Embedding e : passages) {
                assertThat(Vectors.dot(e.vector(), e.vector())).isCloseTo(1.0, within(1e-4));
            }
            assertThat(Vectors.dot(query.vector(), passages.get(0).vector()))
                    .isGreaterThan(Vectors.dot(query.vector(), passages.get(1).vector()) + 0.1);
            // the instruction is part of a query, not of a passage: the same text embeds differently
            double self = Vectors.dot(bge.embedQuery("a hotel with an elevator").vector(),
                    bge.embedDocument("a hotel with an elevator").vector());
            assertThat(self).isLessThan(0.99);
            assertThat(bge.modelId()).startsWith("bge-small-en-v1.5-q/384/cls/w512");
        }
    }
}
