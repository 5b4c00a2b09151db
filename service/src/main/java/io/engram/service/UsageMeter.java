package io.engram.service;

import java.sql.SQLException;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What each tenant uses, counted per UTC day in memory (a request only adds to counters) and added to the
 * {@link UsageLedger} every {@value #FLUSH_MILLIS} ms and at close. A flush that fails keeps its counts for the
 * next, so usage survives a PostgreSQL outage; what a replica killed with {@code kill -9} counted within its last
 * flush interval is lost (docs/operations.md, "Tenants, keys and quotas"). Turned off
 * ({@code service.metering=false}), it counts nothing and the records and bytes quotas are not enforced.
 */
final class UsageMeter implements AutoCloseable {

    static final long FLUSH_MILLIS = 1000;
    private static final Logger LOG = LoggerFactory.getLogger(UsageMeter.class);

    private record Day(String tenantId, LocalDate day) {
    }

    /** The counts not yet flushed, in {@link UsageLedger.Usage}'s order. */
    private static final class Counts {
        final LongAdder[] adders = new LongAdder[7];

        Counts() {
            for (int i = 0; i < adders.length; i++) {
                adders[i] = new LongAdder();
            }
        }
    }

    private static final int RECORDS = 0;
    private static final int BYTES = 1;
    private static final int WRITES = 2;
    private static final int READS = 3;
    private static final int CONTEXTS = 4;
    private static final int FORGETS = 5;
    private static final int EMBED_MILLIS = 6;

    private final UsageLedger ledger;
    private final Clock clock;
    private final Map<Day, Counts> pending = new ConcurrentHashMap<>();
    /** The day's bytes written as the ledger had them at this replica's last flush or look. */
    private final Map<Day, Long> ledgerBytes = new ConcurrentHashMap<>();
    private final ScheduledExecutorService flusher;
    private final boolean enabled;

    UsageMeter(UsageLedger ledger, Clock clock, boolean enabled) {
        this.ledger = ledger;
        this.clock = clock;
        this.enabled = enabled;
        this.flusher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "engram-usage-meter");
            t.setDaemon(true);
            return t;
        });
        if (enabled) {
            flusher.scheduleWithFixedDelay(this::flushQuietly, FLUSH_MILLIS, FLUSH_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    boolean enabled() {
        return enabled;
    }

    /** A write request that accepted {@code records} records of {@code bytes} bytes of text. */
    void wrote(String tenantId, int records, long bytes) {
        if (!enabled) {
            return;
        }
        Counts c = today(tenantId);
        c.adders[WRITES].increment();
        c.adders[RECORDS].add(records);
        c.adders[BYTES].add(bytes);
    }

    /** A read request; {@code context} when it assembled a context; the time its query took to embed. */
    void read(String tenantId, boolean context, long embedNanos) {
        if (!enabled) {
            return;
        }
        Counts c = today(tenantId);
        c.adders[READS].increment();
        if (context) {
            c.adders[CONTEXTS].increment();
        }
        c.adders[EMBED_MILLIS].add(TimeUnit.NANOSECONDS.toMillis(embedNanos));
    }

    void forgot(String tenantId) {
        if (enabled) {
            today(tenantId).adders[FORGETS].increment();
        }
    }

    private Counts today(String tenantId) {
        return pending.computeIfAbsent(new Day(tenantId, LocalDate.now(clock.withZone(ZoneOffset.UTC))), d -> new Counts());
    }

    /** The bytes of text the tenant has written today, on every replica as of their last flush, and here until now. */
    long bytesToday(String tenantId) throws SQLException {
        Day day = new Day(tenantId, LocalDate.now(clock.withZone(ZoneOffset.UTC)));
        Long flushed = ledgerBytes.get(day);
        if (flushed == null) {
            flushed = ledger.rows(tenantId, day.day(), day.day()).stream().mapToLong(UsageLedger.Usage::bytesWritten).sum();
            ledgerBytes.putIfAbsent(day, flushed);
        }
        Counts c = pending.get(day);
        return flushed + (c == null ? 0 : c.adders[BYTES].sum());
    }

    /** Adds what was counted since the last flush to the ledger; on failure the counts wait for the next. */
    synchronized void flush() throws SQLException {
        List<UsageLedger.Usage> increments = new ArrayList<>();
        for (Map.Entry<Day, Counts> e : pending.entrySet()) {
            long[] n = new long[7];
            for (int i = 0; i < n.length; i++) {
                n[i] = e.getValue().adders[i].sumThenReset();
            }
            if (java.util.Arrays.stream(n).anyMatch(v -> v != 0)) {
                increments.add(new UsageLedger.Usage(e.getKey().tenantId(), e.getKey().day(), n[RECORDS], n[BYTES],
                        n[WRITES], n[READS], n[CONTEXTS], n[FORGETS], n[EMBED_MILLIS]));
            }
        }
        if (increments.isEmpty()) {
            return;
        }
        List<UsageLedger.Usage> totals;
        try {
            totals = ledger.add(increments);
        } catch (SQLException | RuntimeException e) {
            increments.forEach(this::putBack);
            throw e;
        }
        totals.forEach(t -> ledgerBytes.put(new Day(t.tenantId(), t.day()), t.bytesWritten()));
        pending.keySet().removeIf(d -> d.day().isBefore(LocalDate.now(clock.withZone(ZoneOffset.UTC)).minusDays(1)));
    }

    private void putBack(UsageLedger.Usage u) {
        Counts c = pending.computeIfAbsent(new Day(u.tenantId(), u.day()), d -> new Counts());
        long[] n = {u.recordsWritten(), u.bytesWritten(), u.writes(), u.reads(), u.contexts(), u.forgets(), u.embedMillis()};
        for (int i = 0; i < n.length; i++) {
            c.adders[i].add(n[i]);
        }
    }

    private void flushQuietly() {
        try {
            flush();
        } catch (SQLException | RuntimeException e) {
            LOG.warn("usage not flushed, kept for the next flush: {}", e.getMessage());
        }
    }

    @Override
    public void close() {
        flusher.shutdownNow();
        flushQuietly();
    }
}
