package io.engram.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RateLimiterTest {

    @Test
    void aKeyGetsItsBurstThenOneRequestPerRefillAndTheWaitItMustKeep() {
        AtomicLong now = new AtomicLong(0);
        RateLimiter limiter = new RateLimiter(now::get); // 2 per second, 3 at once
        assertThat(limiter.acquire("k", 2, 3)).isZero();
        assertThat(limiter.acquire("k", 2, 3)).isZero();
        assertThat(limiter.acquire("k", 2, 3)).isZero();
        assertThat(limiter.acquire("k", 2, 3)).as("the burst is spent: retry after a second").isEqualTo(1);
        assertThat(limiter.acquire("other", 2, 3)).as("another key has its own bucket").isZero();

        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(500)); // one token back
        assertThat(limiter.acquire("k", 2, 3)).isZero();
        assertThat(limiter.acquire("k", 2, 3)).isEqualTo(1);

        now.addAndGet(TimeUnit.SECONDS.toNanos(60)); // refills to the burst, never past it
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.acquire("k", 2, 3)).isZero();
        }
        assertThat(limiter.acquire("k", 2, 3)).isEqualTo(1);
    }

    @Test
    void aSlowRateAsksForALongerWait() {
        RateLimiter limiter = new RateLimiter(() -> 0L);
        assertThat(limiter.acquire("k", 0.1, 1)).as("one request per ten seconds").isZero();
        assertThat(limiter.acquire("k", 0.1, 1)).isEqualTo(10);
    }
}
