package io.engram.service;

import java.time.Duration;
import java.util.function.BinaryOperator;

/**
 * The webhooks' settings (docs/operations.md, "Webhooks"), {@code webhooks.*} keys of the service's settings.
 *
 * @param enabled            whether this replica runs a {@link WebhookDispatcher}
 * @param group              the Kafka consumer group that reads the change feed
 * @param senders            webhooks this replica delivers to at once
 * @param poll               how often it looks for queues due
 * @param timeout            how long a receiver has to answer one delivery
 * @param backoffInitial     the wait after a first failure, doubled after each next one ...
 * @param backoffMax         ... up to this
 * @param pauseAfterFailures failures of one change in a row that pause the webhook
 * @param pauseAfter         or how long it may fail before it is paused
 * @param lease              how long a replica holds a webhook it sends without renewing (more than twice the timeout)
 * @param logSize            attempts kept in each webhook's delivery log
 */
record WebhookSettings(boolean enabled, String group, int senders, Duration poll, Duration timeout,
                       Duration backoffInitial, Duration backoffMax, int pauseAfterFailures, Duration pauseAfter,
                       Duration lease, int logSize) {

    WebhookSettings {
        if (senders < 1 || pauseAfterFailures < 1 || logSize < 1) {
            throw new IllegalArgumentException("webhooks.senders, webhooks.pause-after-failures and webhooks.log-size"
                    + " are 1 or more");
        }
        if (lease.compareTo(timeout.multipliedBy(2)) <= 0) {
            throw new IllegalArgumentException("webhooks.lease-ms must be more than twice webhooks.timeout-ms");
        }
        if (backoffInitial.isNegative() || backoffMax.compareTo(backoffInitial) < 0) {
            throw new IllegalArgumentException("webhooks.backoff-max-ms must be at least webhooks.backoff-initial-ms");
        }
    }

    /** The settings under {@code get}'s keys, each with its default. */
    static WebhookSettings read(BinaryOperator<String> get) {
        return new WebhookSettings(Boolean.parseBoolean(get.apply("webhooks.enabled", "true")),
                get.apply("webhooks.group", "engram-webhooks"),
                Integer.parseInt(get.apply("webhooks.senders", "4")),
                millis(get, "webhooks.poll-ms", "250"),
                millis(get, "webhooks.timeout-ms", "10000"),
                millis(get, "webhooks.backoff-initial-ms", "1000"),
                millis(get, "webhooks.backoff-max-ms", "300000"),
                Integer.parseInt(get.apply("webhooks.pause-after-failures", "10")),
                millis(get, "webhooks.pause-after-ms", "3600000"),
                millis(get, "webhooks.lease-ms", "60000"),
                Integer.parseInt(get.apply("webhooks.log-size", "100")));
    }

    private static Duration millis(BinaryOperator<String> get, String key, String fallback) {
        return Duration.ofMillis(Long.parseLong(get.apply(key, fallback)));
    }

    /**
     * The wait after the {@code failures}-th failure in a row: the initial backoff doubled per failure after the
     * first, capped, then a random part of its second half dropped ({@code random} in [0, 1)) so that receivers
     * coming back are not hit by every webhook at once.
     */
    Duration backoff(int failures, double random) {
        long max = backoffMax.toMillis();
        long wait = backoffInitial.toMillis();
        for (int i = 1; i < failures && wait < max; i++) {
            wait *= 2;
        }
        wait = Math.min(wait, max);
        return Duration.ofMillis(wait - (long) (wait / 2.0 * random));
    }
}
