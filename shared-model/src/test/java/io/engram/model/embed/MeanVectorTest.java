package io.engram.model.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.engram.model.embed.MeanVector.Weighting;
import java.util.List;
import org.junit.jupiter.api.Test;

class MeanVectorTest {

    private static Embedding unit(float x, float y, int tokens) {
        return new Embedding(new float[] {x, y}, tokens, false, 1, tokens == 0);
    }

    @Test
    void theEqualMeanOfTwoOrthogonalUnitVectorsIsTheirBisector() {
        float[] mean = MeanVector.of(List.of(unit(1, 0, 3), unit(0, 1, 1)), Weighting.EQUAL);
        assertThat(mean[0]).isCloseTo((float) Math.sqrt(0.5), within(1e-6f));
        assertThat(mean[1]).isCloseTo((float) Math.sqrt(0.5), within(1e-6f));
    }

    @Test
    void byTokensEachCountsByItsTokensThenTheMeanIsUnitLength() {
        // 3 · (1, 0) + 1 · (0, 1) = (3, 1), over √10
        float[] mean = MeanVector.of(List.of(unit(1, 0, 3), unit(0, 1, 1)), Weighting.TOKENS);
        assertThat(mean[0]).isCloseTo((float) (3 / Math.sqrt(10)), within(1e-6f));
        assertThat(mean[1]).isCloseTo((float) (1 / Math.sqrt(10)), within(1e-6f));
        // a blank part weighs nothing
        float[] withBlank = MeanVector.of(List.of(unit(1, 0, 3), unit(0, 1, 0)), Weighting.TOKENS);
        assertThat(withBlank).containsExactly(1f, 0f);
    }

    @Test
    void blankPartsOnlyCountTheSameAndOnePartIsItself() {
        float[] blanks = MeanVector.of(List.of(unit(1, 0, 0), unit(0, 1, 0)), Weighting.TOKENS);
        assertThat(blanks[0]).isCloseTo((float) Math.sqrt(0.5), within(1e-6f));
        assertThat(blanks[1]).isCloseTo((float) Math.sqrt(0.5), within(1e-6f));
        assertThat(MeanVector.of(List.of(unit(0.6f, 0.8f, 5)), Weighting.EQUAL)).containsExactly(0.6f, 0.8f);
    }

    @Test
    void noPartsOrMixedDimensionsAreRefused() {
        assertThatThrownBy(() -> MeanVector.of(List.of(), Weighting.EQUAL)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one");
        Embedding threeD = new Embedding(new float[] {1, 0, 0}, 1, false, 1, false);
        assertThatThrownBy(() -> MeanVector.of(List.of(unit(1, 0, 1), threeD), Weighting.EQUAL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dimensions differ");
    }
}
