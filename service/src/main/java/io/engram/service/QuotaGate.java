package io.engram.service;

import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A tenant's quotas, enforced (docs/operations.md, "Tenants, keys and quotas"): its writes and reads per second
 * (token buckets on this replica), and before a write the records it stores and the bytes of text it wrote today.
 * A write past a quota is refused whole with {@code quota_exceeded}, naming the quota, its limit and the usage;
 * nothing accepted before it is touched. Records stored are counted in the index (all but summaries and windows)
 * at most once a second per tenant, plus what this replica accepted since: records still on their way to the index
 * from another replica are not seen, so a tenant can pass its records quota by what it writes within the
 * pipeline's freshness (about a second).
 */
final class QuotaGate {

    private record Count(long stored, long at) {
    }

    private final QuotaSettings settings;
    private final KeyDirectory directory;
    private final MemoryReads reads;
    private final UsageMeter meter;
    private final LongSupplier nanoClock;
    private final RateLimiter rates;
    private final Map<String, Count> counts = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> acceptedSinceCount = new ConcurrentHashMap<>();

    /** With a {@code meter} turned off only the rates are enforced. */
    QuotaGate(QuotaSettings settings, KeyDirectory directory, MemoryReads reads, UsageMeter meter, LongSupplier nanoClock) {
        this.settings = settings;
        this.directory = directory;
        this.reads = reads;
        this.meter = meter;
        this.nanoClock = nanoClock;
        this.rates = new RateLimiter(nanoClock);
    }

    /** The tenant's quotas: its own where it was given them, the defaults for the rest. */
    TenantStore.Quotas quotasOf(String tenantId) {
        return directory.tenant(tenantId).map(t -> t.quotas().or(settings.defaults())).orElse(settings.defaults());
    }

    /** Takes a token of the tenant's writes or reads; 429 with the seconds to wait when there is none. */
    void admitRequest(String bucket, String tenantId, boolean write) throws ApiError {
        TenantStore.Quotas quotas = quotasOf(tenantId);
        double perSecond = write ? quotas.writesPerSecond() : quotas.readsPerSecond();
        long wait = rates.acquire(bucket + (write ? "/writes" : "/reads"), perSecond, settings.burst(perSecond));
        if (wait > 0) {
            throw new ApiError(429, "rate_limited", "too many " + (write ? "writes" : "reads") + " for tenant "
                    + tenantId + " (" + perSecond + " per second); retry after " + wait + " s", wait);
        }
    }

    /** Refuses a write of {@code records} records and {@code bytes} bytes of text that would pass a quota. */
    void admitWrite(String tenantId, int records, long bytes) throws ApiError, SQLException {
        if (!meter.enabled()) {
            return;
        }
        TenantStore.Quotas quotas = quotasOf(tenantId);
        if (quotas.records() != null) {
            long stored = stored(tenantId);
            if (stored + records > quotas.records()) {
                throw exceeded("records", quotas.records(), stored, records);
            }
        }
        if (quotas.textBytesPerDay() != null) {
            long today = meter.bytesToday(tenantId);
            if (today + bytes > quotas.textBytesPerDay()) {
                throw exceeded("text_bytes_per_day", quotas.textBytesPerDay(), today, bytes);
            }
        }
    }

    /** Records a write accepted, for the records quota until the index counts them. */
    void accepted(String tenantId, int records) {
        if (meter.enabled()) {
            acceptedSinceCount.computeIfAbsent(tenantId, t -> new AtomicLong()).addAndGet(records);
        }
    }

    private long stored(String tenantId) {
        long now = nanoClock.getAsLong();
        Count count = counts.get(tenantId);
        if (count == null || now - count.at() > TimeUnit.SECONDS.toNanos(1)) {
            count = new Count(reads.storedRecords(tenantId), now);
            counts.put(tenantId, count);
            acceptedSinceCount.remove(tenantId);
        }
        AtomicLong since = acceptedSinceCount.get(tenantId);
        return count.stored() + (since == null ? 0 : since.get());
    }

    private static ApiError exceeded(String quota, long limit, long usage, long asked) {
        return new ApiError(403, "quota_exceeded", "the tenant's " + quota + " quota is " + limit + "; it uses " + usage
                + " and this write adds " + asked).with("quota", quota).with("limit", limit).with("usage", usage);
    }
}
