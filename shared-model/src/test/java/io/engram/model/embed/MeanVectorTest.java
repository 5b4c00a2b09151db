package io.engram.model.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class MeanVectorTest {

    private static Embedding unit(float x, float y, int tokens) {
        return new Embedding(new float[] {x, y}, tokens, false, 1, tokens == 0);
    }

    @Test
    void theMeanOfTwoOrthogonalUnitVectorsIsTheirBisectorWhateverTheirTokens() {
        float[] mean = MeanVector.of(List.of(unit(1, 0, 30), unit(0, 1, 1)));
        assertThat(mean[0]).isCloseTo((float) Math.sqrt(0.5), within(1e-6f));
        assertThat(mean[1]).isCloseTo((float) Math.sqrt(0.5), within(1e-6f));
    }

    @Test
    void eachPartCountsOnceThenTheSumIsScaledToUnitLength() {
        // (1, 0) + (1, 0) + (0.6, 0.8) = (2.6, 0.8), over √7.4
        float[] mean = MeanVector.of(List.of(unit(1, 0, 3), unit(1, 0, 3), unit(0.6f, 0.8f, 5)));
        assertThat(mean[0]).isCloseTo((float) (2.6 / Math.sqrt(7.4)), within(1e-6f));
        assertThat(mean[1]).isCloseTo((float) (0.8 / Math.sqrt(7.4)), within(1e-6f));
        float[] one = MeanVector.of(List.of(unit(0.6f, 0.8f, 5)));
        assertThat(one[0]).isCloseTo(0.6f, within(1e-6f));
        assertThat(one[1]).isCloseTo(0.8f, within(1e-6f));
    }

    @Test
    void noPartsOrMixedDimensionsAreRefused() {
        assertThatThrownBy(() -> MeanVector.of(List.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one");
        Embedding threeD = new Embedding(new float[] {1, 0, 0}, 1, false, 1, false);
        assertThatThrownBy(() -> MeanVector.of(List.of(unit(1, 0, 1), threeD)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dimensions differ");
    }
}
