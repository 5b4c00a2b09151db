package io.engram.model.collapse;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.collapse.CycleClock.Decision;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class CycleClockTest {

    private final CycleClock clock = new CycleClock(Duration.ofMinutes(10));
    private static final long T = 1_700_000_000_000L;
    private static final long GAP = 600_000;

    @Test
    void aNamedCycleOpensAndANewNameClosesIt() {
        assertThat(clock.next(null, 0, "c1", T)).isEqualTo(new Decision("c1", null, null));
        assertThat(clock.next("c1", T, "c1", T + 5 * GAP)).isEqualTo(new Decision("c1", null, null));
        assertThat(clock.next("c1", T, "c2", T + 1)).isEqualTo(new Decision("c2", "c1", "cycle_id"));
    }

    @Test
    void unnamedWritesJoinTheOpenCycleUntilAQuietGap() {
        assertThat(clock.next(null, 0, null, T)).isEqualTo(new Decision("q-2023-11-14T22:13:20Z", null, null));
        assertThat(clock.next("c1", T, null, T + GAP)).isEqualTo(new Decision("c1", null, null));
        assertThat(clock.next("c1", T, null, T + GAP + 1))
                .isEqualTo(new Decision("q-2023-11-14T22:23:20.001Z", "c1", "quiet_gap"));
        assertThat(clock.quietCloseAt(T)).isEqualTo(T + GAP + 1);
    }
}
