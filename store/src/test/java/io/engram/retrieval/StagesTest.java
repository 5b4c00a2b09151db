package io.engram.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StagesTest {

    @Test
    void eachLapIsTheTimeSinceThePreviousAndARepeatedStageAddsUp() {
        Stages stages = new Stages();
        stages.lap("embed");
        busy(3);
        stages.lap("search");
        busy(2);
        stages.lap("embed");
        assertThat(stages.nanos()).containsOnlyKeys("embed", "search");
        assertThat(stages.nanos().get("search")).isGreaterThanOrEqualTo(3_000_000L);
        assertThat(stages.nanos().get("embed")).isGreaterThanOrEqualTo(2_000_000L);
        assertThat(stages.serverTiming()).matches("embed;dur=\\d+\\.\\d{2}, search;dur=\\d+\\.\\d{2}");
    }

    /** Spins for at least {@code millis} ms (a lap measures elapsed time, whatever the thread did). */
    private static void busy(long millis) {
        long until = System.nanoTime() + millis * 1_000_000;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }
}
