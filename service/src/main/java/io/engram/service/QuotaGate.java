package io.engram.service;

import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tenant's quotas, enforced (docs/operations.md, "Tenants, keys and quotas"): its writes and reads per second
 * (token buckets on this replica), and before a write the records it stores and the bytes of text it wrote today.
 * A write past a quota is refused whole with {@code quota_exceeded}, naming the quota, its limit and the usage;
 * nothing accepted before it is touched. Records stored are counted in the index (all but summaries and windows),
 * plus what this replica accepted and the index does not hold yet ({@link #stored}): records on their way to the
 * index from another replica are not seen, so a tenant can pass its records quota by what it writes there within
 * the pipeline's freshness (about a second).
 */
final class QuotaGate implements AutoCloseable {

    private record Count(long stored, long at) {
    }

    private final QuotaSettings settings;
    private final KeyDirectory directory;
    private final MemoryReads reads;
    private final UsageMeter meter;
    private final LongSupplier nanoClock;
    private final RateLimiter rates;
    private final Map<String, Count> counts = new ConcurrentHashMap<>();
    private final Map<String, Accepted> acceptedRecently = new ConcurrentHashMap<>();
    private final Set<String> recounting = ConcurrentHashMap.newKeySet();
    private final ExecutorService recounter = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "engram-quota-recount");
        t.setDaemon(true);
        return t;
    });
    private static final Logger LOG = LoggerFactory.getLogger(QuotaGate.class);
    /** How long a record accepted may take to be counted by the index: the pipeline's freshness, with room. */
    static final long IN_FLIGHT_MILLIS = 2000;
    static final long FAR_RECOUNT_SECONDS = 30;

    /** With a {@code meter} turned off only the rates are enforced. */
    QuotaGate(QuotaSettings settings, KeyDirectory directory, MemoryReads reads, UsageMeter meter,
              LongSupplier nanoClock) {
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
            long stored = stored(tenantId, quotas.records() - records);
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

    /** Records a write's accepted store ids, for the records quota until the index counts them. */
    void accepted(String tenantId, List<String> storeIds) {
        if (meter.enabled()) {
            acceptedRecently.computeIfAbsent(tenantId, t -> new Accepted()).add(storeIds);
        }
    }

    /**
     * The records the tenant stores: the index's count plus the records this replica accepted since, or shortly
     * before it (they may not have been indexed when it was taken). Far from its
     * quota ({@code room}: the quota less the write's records) the count is renewed in the background when
     * {@value #FAR_RECOUNT_SECONDS} s old: counting costs the index an aggregation. Near it — within a tenth of
     * the room (at least one record), or past half of it with a count over a second old — the count is taken
     * before the write, and the records this replica accepted within {@value #IN_FLIGHT_MILLIS} ms (the
     * pipeline's freshness, with room) are looked up by id: those the index does not hold yet are added, so a
     * record is counted once, wherever it is on its way.
     */
    private long stored(String tenantId, long room) {
        long now = nanoClock.getAsLong();
        Accepted accepted = acceptedRecently.computeIfAbsent(tenantId, t -> new Accepted());
        Count count = counts.get(tenantId);
        if (count != null) {
            // what may still be on its way counts too: this may count a record twice, which only brings the exact
            // count below sooner
            long inFlightFrom = count.at() - TimeUnit.MILLISECONDS.toNanos(IN_FLIGHT_MILLIS);
            long known = count.stored() + accepted.countSince(inFlightFrom);
            long age = now - count.at();
            boolean near = known >= room - Math.max(1, room / 10)
                    || age > TimeUnit.SECONDS.toNanos(1) && known >= room / 2;
            if (!near) {
                if (age > TimeUnit.SECONDS.toNanos(FAR_RECOUNT_SECONDS)) {
                    recountLater(tenantId, accepted);
                }
                return known;
            }
        }
        count = recount(tenantId, accepted);
        List<String> recent = accepted.since(count.at() - TimeUnit.MILLISECONDS.toNanos(IN_FLIGHT_MILLIS));
        Set<String> indexed = new HashSet<>();
        if (!recent.isEmpty()) {
            reads.get(tenantId, List.copyOf(new HashSet<>(recent))).forEach(r -> indexed.add(r.id()));
        }
        return count.stored() + recent.stream().distinct().filter(id -> !indexed.contains(id)).count();
    }

    private Count recount(String tenantId, Accepted accepted) {
        long now = nanoClock.getAsLong();
        Count count = new Count(reads.storedRecords(tenantId), now);
        counts.put(tenantId, count);
        accepted.dropBefore(now - TimeUnit.MILLISECONDS.toNanos(IN_FLIGHT_MILLIS));
        return count;
    }

    private void recountLater(String tenantId, Accepted accepted) {
        if (recounting.add(tenantId)) {
            recounter.execute(() -> {
                try {
                    recount(tenantId, accepted);
                } catch (RuntimeException e) {
                    LOG.warn("tenant {}'s records not counted: {}", tenantId, e.getMessage());
                } finally {
                    recounting.remove(tenantId);
                }
            });
        }
    }

    /** The store ids a replica accepted for a tenant in the last moments, with when. */
    private final class Accepted {
        private final ArrayDeque<Map.Entry<Long, String>> ids = new ArrayDeque<>();

        synchronized void add(List<String> storeIds) {
            long now = nanoClock.getAsLong();
            storeIds.forEach(id -> ids.addLast(Map.entry(now, id)));
        }

        /** Forgets the ids accepted before {@code from}: a count taken after them holds them. */
        synchronized void dropBefore(long from) {
            while (!ids.isEmpty() && ids.peekFirst().getKey() < from) {
                ids.removeFirst();
            }
        }

        /** How many ids were accepted at or after {@code from}. */
        synchronized long countSince(long from) {
            return ids.stream().filter(e -> e.getKey() >= from).count();
        }

        /** The ids accepted at or after {@code from}. */
        synchronized List<String> since(long from) {
            return ids.stream().filter(e -> e.getKey() >= from).map(Map.Entry::getValue).toList();
        }
    }

    private static ApiError exceeded(String quota, long limit, long usage, long asked) {
        return new ApiError(403, "quota_exceeded", "the tenant's " + quota + " quota is " + limit + "; it uses " + usage
                + " and this write adds " + asked).with("quota", quota).with("limit", limit).with("usage", usage);
    }

    @Override
    public void close() {
        recounter.shutdownNow();
    }
}
