package io.engram.store;

import java.io.Serializable;
import java.time.Duration;

/**
 * Exponential backoff for writes: {@code initial · 2^attempt}, capped, for at most {@code maxAttempts} tries.
 * A retry sleeps on the task thread, where no checkpoint can be taken, so the defaults give up after about
 * 11 s (100 ms … 5 s): a longer outage fails the task, which Flink restarts from its last checkpoint with
 * exponential delay, holding no thread while it waits.
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) implements Serializable {

    public static final RetryPolicy DEFAULT = new RetryPolicy(8, Duration.ofMillis(100), Duration.ofSeconds(5));

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
