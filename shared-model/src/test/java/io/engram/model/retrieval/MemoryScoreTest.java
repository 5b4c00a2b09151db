package io.engram.model.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.engram.model.retrieval.MemoryScore.Scope;
import org.junit.jupiter.api.Test;

class MemoryScoreTest {

    private final MemoryScore score = MemoryScore.DEFAULT;

    @Test
    void freshSameSessionPerfectMatchScoresOne() {
        assertThat(score.score(1.0, 0, Scope.SESSION, null)).isCloseTo(1.0, within(1e-12));
    }

    @Test
    void theBriefsFormulaWithItsConstants() {
        // a day-old user-scope memory with cosine 0.8: (0.7*0.8 + 0.2*exp(-1e-5*86400) + 0.1*0.6) / 1.0
        double expected = 0.7 * 0.8 + 0.2 * Math.exp(-1e-5 * 86_400) + 0.1 * 0.6;
        assertThat(score.score(0.8, 86_400, Scope.USER, null)).isCloseTo(expected, within(1e-12));
        // global scope decays by 2e-6 per second and weighs 0.3
        double global = 0.7 * 0.5 + 0.2 * Math.exp(-2e-6 * 3_600) + 0.1 * 0.3;
        assertThat(score.score(0.5, 3_600, Scope.GLOBAL, null)).isCloseTo(global, within(1e-12));
        // session scope decays by 1e-4 per second
        double session = 0.7 * 0.5 + 0.2 * Math.exp(-1e-4 * 3_600) + 0.1;
        assertThat(score.score(0.5, 3_600, Scope.SESSION, null)).isCloseTo(session, within(1e-12));
    }

    @Test
    void cosineIsClampedAndWeightsRenormalised() {
        assertThat(score.score(-0.4, 0, Scope.SESSION, null)).isCloseTo(0.3, within(1e-12));
        assertThat(score.score(1.7, 0, Scope.SESSION, null)).isCloseTo(1.0, within(1e-12));
        MemoryScore doubled = new MemoryScore(1.4, 0.4, 0.2);
        assertThat(doubled.score(0.8, 100, Scope.USER, null)).isCloseTo(score.score(0.8, 100, Scope.USER, null), within(1e-12));
    }

    @Test
    void summariesAreDiscountedByTheirDecayRate() {
        assertThat(MemoryScore.summaryQuality(0.2)).isCloseTo(0.9, within(1e-12));
        double plain = score.score(0.9, 10, Scope.SESSION, null);
        assertThat(score.score(0.9, 10, Scope.SESSION, 0.2)).isCloseTo(plain * 0.9, within(1e-12));
    }

    @Test
    void scopeIsSessionThenUserThenGlobal() {
        assertThat(Scope.of("s1", "u1", "s1", "u2")).isEqualTo(Scope.SESSION);
        assertThat(Scope.of("s2", "u1", "s1", "u1")).isEqualTo(Scope.USER);
        assertThat(Scope.of(null, null, "s1", "u1")).isEqualTo(Scope.GLOBAL);
        assertThat(Scope.of("s2", "u2", "s1", null)).isEqualTo(Scope.GLOBAL);
    }
}
