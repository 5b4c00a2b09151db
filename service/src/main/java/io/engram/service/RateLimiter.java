package io.engram.service;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A token bucket per key (a tenant's writes, its reads): {@code burst} requests at once, refilled at
 * {@code perSecond}, both given with each request so a tenant's quota may change while it runs. A refused request
 * learns how many seconds until its next token ({@code Retry-After}).
 */
final class RateLimiter {

    private final LongSupplier nanoClock;
    private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();

    private static final class Bucket {
        double tokens;
        long at;

        Bucket(double tokens, long at) {
            this.tokens = tokens;
            this.at = at;
        }
    }

    RateLimiter(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** 0 when the request may go ahead (and takes a token), else the whole seconds to wait before retrying. */
    long acquire(String key, double perSecond, int burst) {
        if (perSecond <= 0 || burst < 1) {
            throw new IllegalArgumentException("a rate limit needs a positive rate and a burst of at least 1");
        }
        long now = nanoClock.getAsLong();
        Bucket bucket = buckets.computeIfAbsent(key, k -> new Bucket(burst, now));
        synchronized (bucket) {
            double elapsed = (now - bucket.at) / (double) TimeUnit.SECONDS.toNanos(1);
            bucket.tokens = Math.min(burst, bucket.tokens + elapsed * perSecond);
            bucket.at = now;
            if (bucket.tokens >= 1) {
                bucket.tokens -= 1;
                return 0;
            }
            return Math.max(1, (long) Math.ceil((1 - bucket.tokens) / perSecond));
        }
    }
}
