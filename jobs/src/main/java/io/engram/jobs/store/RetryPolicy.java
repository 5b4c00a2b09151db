package io.engram.jobs.store;

import java.io.Serializable;
import java.time.Duration;

/**
 * Exponential backoff for writes: {@code initial · 2^attempt}, capped, for at most {@code maxAttempts} tries.
 * The defaults wait about a minute in all before giving up with a clear failure.
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) implements Serializable {

    public static final RetryPolicy DEFAULT = new RetryPolicy(12, Duration.ofMillis(100), Duration.ofSeconds(10));

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1");
        }
    }

    Duration backoff(int attempt) {
        long millis = initialBackoff.toMillis() << Math.min(attempt, 20);
        return Duration.ofMillis(Math.min(millis, maxBackoff.toMillis()));
    }
}
