package io.engram.model.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SessionDiversityTest {

    @Test
    void eachFurtherHitOfASessionKeepsLessOfItsScore() {
        double[] spread = new SessionDiversity(0.5).scores(Arrays.asList("s1", "s1", "s2", "s1", null, null),
                new double[] {1.0, 0.9, 0.8, 0.7, 0.6, 0.5});
        // s1: 1.0, 0.9 * 0.5, 0.7 * 0.25; s2's first hit keeps its score, and so do hits without a session
        assertThat(spread).containsExactly(1.0, 0.45, 0.8, 0.175, 0.6, 0.5);
        // so the first hit of the second session now ranks above the second of the first
        assertThat(spread[2]).isGreaterThan(spread[1]);
    }

    @Test
    void noneLeavesEveryScoreAsItIs() {
        double[] scores = {0.9, 0.8};
        assertThat(SessionDiversity.NONE.scores(Arrays.asList("s1", "s1"), scores)).containsExactly(0.9, 0.8);
    }

    @Test
    void refusesADecayOutsideItsRangeAndMismatchedInput() {
        assertThatThrownBy(() -> new SessionDiversity(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SessionDiversity(1.1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SessionDiversity.NONE.scores(Arrays.asList("s1"), new double[2]))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
