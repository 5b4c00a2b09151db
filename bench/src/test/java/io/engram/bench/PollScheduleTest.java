package io.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How often {@code bench pipeline}'s poller counts: often at the run's two ends, rarely in between. */
class PollScheduleTest {

    @Test
    void beforeTheFirstRecordItPollsEvery50Ms() {
        assertThat(PipelineThroughput.nextPollMillis(0, 2000, 0)).isEqualTo(50);
    }

    @Test
    void inBetweenItSleepsHalfThePredictedRestUpToASecond() {
        // 100 of 2,000 after 1 s: 19 s left at that rate, so a second
        assertThat(PipelineThroughput.nextPollMillis(100, 2000, 1_000_000_000L)).isEqualTo(1_000);
        // 1,800 of 2,000 after 9 s: 1 s left, so half of it
        assertThat(PipelineThroughput.nextPollMillis(1800, 2000, 9_000_000_000L)).isEqualTo(500);
    }

    @Test
    void nearTheLastRecordItPollsEvery50Ms() {
        // 1,990 of 2,000 after 10 s: 50 ms left
        assertThat(PipelineThroughput.nextPollMillis(1990, 2000, 10_000_000_000L)).isEqualTo(50);
    }
}
