package io.engram.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    @Test
    void theDefaultHoldsTheTaskThreadForAboutElevenSecondsAtMost() {
        RetryPolicy p = RetryPolicy.DEFAULT;
        Duration slept = Duration.ZERO;
        for (int retry = 0; retry < p.maxAttempts() - 1; retry++) {
            slept = slept.plus(p.backoff(retry));
        }
        // 100, 200, 400, 800, 1600, 3200, then the 5 s cap
        assertThat(p.backoff(0)).isEqualTo(Duration.ofMillis(100));
        assertThat(p.backoff(6)).isEqualTo(Duration.ofSeconds(5));
        assertThat(slept).isEqualTo(Duration.ofMillis(11_300));
    }
}
