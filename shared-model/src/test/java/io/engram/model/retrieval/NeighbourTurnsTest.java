package io.engram.model.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

class NeighbourTurnsTest {

    private final NeighbourTurns neighbours = new NeighbourTurns(2, 0.8);

    @Test
    void aNeighbourKeepsWeightToTheDistanceTimesTheBestNearbyScore() {
        Map<Integer, Double> retrieved = Map.of(10, 0.5, 13, 0.9);
        assertThat(neighbours.score(11, retrieved)).isCloseTo(Math.max(0.5 * 0.8, 0.9 * 0.64), within(1e-12));
        assertThat(neighbours.score(12, retrieved)).isCloseTo(0.9 * 0.8, within(1e-12));
        assertThat(neighbours.score(15, retrieved)).isCloseTo(0.9 * 0.64, within(1e-12));
    }

    @Test
    void beyondTheRadiusAndTheRetrievedTurnItselfScoreNothing() {
        Map<Integer, Double> retrieved = Map.of(10, 0.5);
        assertThat(neighbours.score(13, retrieved)).isZero();
        assertThat(neighbours.score(10, retrieved)).isZero();
        assertThat(NeighbourTurns.NONE.score(11, retrieved)).isZero();
    }

    @Test
    void aNegativeRadiusOrAWeightOutsideZeroToOneIsRefused() {
        assertThatThrownBy(() -> new NeighbourTurns(-1, 0.8)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new NeighbourTurns(1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new NeighbourTurns(1, 1.2)).isInstanceOf(IllegalArgumentException.class);
    }
}
