package io.engram.model.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class HashedStandinEmbedderTest {

    private final Embedder standin = EmbeddingModel.ofId("hashed-standin").embedder();

    @Test
    void theSameTextGetsTheSameUnitVectorOfTheModelsDimensionInEveryInstance() {
        String text = "Renewing the cloud contract before March.";
        Embedding once = standin.embedDocument(text);
        Embedding again = new HashedStandinEmbedder(EmbeddingModel.DIMENSION).embedQuery(text);
        assertThat(once.dimension()).isEqualTo(EmbeddingModel.DIMENSION).isEqualTo(standin.dimension());
        assertThat(once.vector()).containsExactly(again.vector());
        assertThat(Vectors.dot(once.vector(), once.vector())).isCloseTo(1.0, within(1e-5));
        assertThat(once.tokens()).isEqualTo(11); // the estimate: 42 characters / 4
        assertThat(standin.modelId()).isEqualTo("hashed-standin/384");
    }

    @Test
    void similarTextsAreCloserThanUnrelatedOnes() {
        List<Embedding> e = standin.embedDocuments(List.of("the quarterly budget review is on Friday",
                "when is the quarterly budget review", "a kayak trip on the fjord in June"));
        assertThat(e.get(0).cosine(e.get(1))).isGreaterThan(0.5).isGreaterThan(e.get(0).cosine(e.get(2)) + 0.3);
    }

    @Test
    void aTextWithoutWordsStillGetsAUnitVectorAndBlankIsSaid() {
        Embedding blank = standin.embedDocument("   ");
        Embedding punctuation = standin.embedDocument("?!");
        assertThat(blank.blank()).isTrue();
        assertThat(punctuation.blank()).isFalse();
        assertThat(Vectors.dot(blank.vector(), blank.vector())).isCloseTo(1.0, within(1e-6));
        assertThat(punctuation.vector()).containsExactly(blank.vector());
    }

    @Test
    void theStandinIsNoOnnxModel() {
        assertThatThrownBy(EmbeddingModel.HASHED_STANDIN::open).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("hashed-standin is a stand-in");
    }
}
