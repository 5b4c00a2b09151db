package io.engram.service;

import java.sql.SQLException;
import java.time.Clock;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica's view of the tenants and keys made by API: the {@link TenantStore}'s snapshot, held in memory and
 * reloaded when the store's version moves (checked every {@value #POLL_MILLIS} ms, and at once after a change this
 * replica made), so a key made, revoked or expired, or a tenant suspended, on any replica holds here within a
 * second. A request's key is found by its digest in a hash map: a lookup costs the same however many keys.
 */
final class KeyDirectory implements AutoCloseable {

    static final long POLL_MILLIS = 250;
    private static final Logger LOG = LoggerFactory.getLogger(KeyDirectory.class);

    private final TenantStore store;
    private final Clock clock;
    private final ScheduledExecutorService poller;
    private volatile TenantStore.Snapshot snapshot = TenantStore.Snapshot.EMPTY;

    KeyDirectory(TenantStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
        this.poller = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "engram-key-directory");
            t.setDaemon(true);
            return t;
        });
        poll(); // the keys of the store are there before the first request
        poller.scheduleWithFixedDelay(this::poll, POLL_MILLIS, POLL_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void poll() {
        try {
            if (store.version() != snapshot.version()) {
                reload();
            }
        } catch (SQLException | RuntimeException e) {
            // the keys loaded last stay valid while PostgreSQL is away: the service keeps serving
            LOG.warn("the tenant directory was not reloaded: {}", e.getMessage());
        }
    }

    /** Loads the store's tenants and keys now (after a change this replica made). */
    synchronized void reload() throws SQLException {
        snapshot = store.load();
    }

    /** The caller of a key made by API that is neither revoked nor expired. */
    Optional<ApiKeys.Caller> identify(byte[] presentedDigest) {
        TenantStore.Key key = snapshot.keysByDigest().get(HexFormat.of().formatHex(presentedDigest));
        if (key == null || key.expired(clock.instant())) {
            return Optional.empty();
        }
        return Optional.of(new ApiKeys.Caller(key.tenantId(), key.keyId(), key.scopes()));
    }

    /** The tenant as the store has it; empty for a tenant only the key file knows. */
    Optional<TenantStore.Tenant> tenant(String tenantId) {
        return Optional.ofNullable(snapshot.tenants().get(tenantId));
    }

    List<TenantStore.Tenant> tenants() {
        return List.copyOf(snapshot.tenants().values());
    }

    /** The tenant's keys not revoked (expired ones among them), oldest first. */
    List<TenantStore.Key> keys(String tenantId) {
        return snapshot.keysByDigest().values().stream().filter(k -> k.tenantId().equals(tenantId)).toList();
    }

    TenantStore store() {
        return store;
    }

    @Override
    public void close() {
        poller.shutdownNow();
    }
}
