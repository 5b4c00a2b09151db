package io.engram.model.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class RelevanceFeedbackTest {

    @Test
    void theQueryMovesTowardTheCentroidOfItsBestHitsAndStaysUnitLength() {
        float[] q = {1, 0, 0};
        // two hits used of three given: centroid (0, 0.5, 0.5); q + 1.0 * centroid = (1, 0.5, 0.5), normalised
        float[] moved = new RelevanceFeedback(2, 1.0).expand(q, List.of(new float[] {0, 1, 0}, new float[] {0, 0, 1},
                new float[] {-1, 0, 0}));
        double norm = Math.sqrt(1.5);
        assertThat(moved[0]).isCloseTo((float) (1 / norm), within(1e-6f));
        assertThat(moved[1]).isCloseTo((float) (0.5 / norm), within(1e-6f));
        assertThat(moved[2]).isCloseTo((float) (0.5 / norm), within(1e-6f));
        assertThat(q).containsExactly(1, 0, 0); // the query itself is left alone
    }

    @Test
    void withoutHitsOrWeightTheQueryStaysWhereItWas() {
        assertThat(new RelevanceFeedback(3, 0.5).expand(new float[] {0, 2}, List.of())).containsExactly(0, 1);
        assertThat(RelevanceFeedback.NONE.on()).isFalse();
        assertThat(new RelevanceFeedback(3, 0.5).on()).isTrue();
    }

    @Test
    void refusesNegativeSettingsAndOtherDimensions() {
        assertThatThrownBy(() -> new RelevanceFeedback(-1, 0.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RelevanceFeedback(1, -0.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RelevanceFeedback(1, 1).expand(new float[2], List.of(new float[3])))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
