package io.engram.model.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class RelevanceFloorTest {

    private final RelevanceFloor floor = new RelevanceFloor(0.9);

    @Test
    void aVectorOnlyCandidateMustReachTheShareOfTheBestCosine() {
        assertThat(floor.minimumCosine(0.8)).isCloseTo(0.72, within(1e-12));
        assertThat(floor.related(false, 0.7201, 0.8)).isTrue();
        assertThat(floor.related(false, 0.7199, 0.8)).isFalse();
    }

    @Test
    void aLexicalMatchIsRelatedWhateverItsCosine() {
        assertThat(floor.related(true, 0.0, 0.8)).isTrue();
    }

    @Test
    void noneKeepsEveryCandidateAndANegativeBestCosineSetsNoFloor() {
        assertThat(RelevanceFloor.NONE.related(false, -0.5, 0.9)).isTrue();
        assertThat(RelevanceFloor.NONE.minimumCosine(0.9)).isEqualTo(-1);
        assertThat(floor.minimumCosine(-0.2)).isZero();
    }

    @Test
    void aShareOutsideZeroToOneIsRefused() {
        assertThatThrownBy(() -> new RelevanceFloor(1.1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RelevanceFloor(-0.1)).isInstanceOf(IllegalArgumentException.class);
    }
}
