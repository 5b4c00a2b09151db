package io.engram.service;

import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;
import java.util.Set;

/**
 * Where the tenants and keys made by API live ({@link PostgresTenantStore}: sql/migrations/V5__tenants_keys_usage.sql),
 * as every replica's {@link KeyDirectory} reads them. Each change moves {@link #version}, so a replica reloads
 * only when something changed.
 */
interface TenantStore extends AutoCloseable {

    /** A tenant's state: an active tenant is served, a suspended one refused, a deleting one is being forgotten. */
    enum Status {
        ACTIVE, SUSPENDED, DELETING;

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        static Status ofLabel(String label) {
            return valueOf(label.toUpperCase(java.util.Locale.ROOT));
        }
    }

    /** A tenant's own quotas; a null one takes the service's default ({@code quota.*}). */
    record Quotas(Long records, Long textBytesPerDay, Double writesPerSecond, Double readsPerSecond) {
        static final Quotas DEFAULTS = new Quotas(null, null, null, null);

        /** These quotas, each null one taken from {@code fallback}. */
        Quotas or(Quotas fallback) {
            return new Quotas(records != null ? records : fallback.records,
                    textBytesPerDay != null ? textBytesPerDay : fallback.textBytesPerDay,
                    writesPerSecond != null ? writesPerSecond : fallback.writesPerSecond,
                    readsPerSecond != null ? readsPerSecond : fallback.readsPerSecond);
        }
    }

    /** A tenant made by API. {@code deletionForgetId}: the forget removing its records once it is deleting. */
    record Tenant(String tenantId, Status status, Instant createdAt, Quotas quotas, String deletionForgetId) {
    }

    /** A key made by API (never its secret); {@code expiresAt} null when it does not expire. */
    record Key(String keyId, String tenantId, String name, Set<Scope> scopes, Instant createdAt, Instant expiresAt) {
        boolean expired(Instant now) {
            return expiresAt != null && !now.isBefore(expiresAt);
        }
    }

    /** Every tenant by id, and every key not revoked by the hex of its digest. */
    record Snapshot(long version, Map<String, Tenant> tenants, Map<String, Key> keysByDigest) {
        static final Snapshot EMPTY = new Snapshot(-1, Map.of(), Map.of());
    }

    long version() throws SQLException;

    Snapshot load() throws SQLException;

    /** False when the tenant exists already. */
    boolean createTenant(String tenantId, Quotas quotas, Instant at) throws SQLException;

    /** Sets what is not null; false when there is no such tenant. */
    boolean updateTenant(String tenantId, Status status, Quotas quotas) throws SQLException;

    /**
     * Marks the tenant deleting with the forget that removes its records and revokes all its keys, in one
     * transaction; a tenant the key file knows but the store does not is added as deleting. Returns the forget's
     * id: {@code forgetId}, or the one of an earlier call (a retried deletion sends the same forget again).
     */
    String markDeleting(String tenantId, String forgetId, Instant at) throws SQLException;

    /** Adds a key; when {@code replacesKeyId} is not null, revokes that key of the tenant in the same transaction. */
    void createKey(Key key, byte[] digest, String replacesKeyId) throws SQLException;

    /** Revokes the tenant's key; false when it has no such key not yet revoked. */
    boolean revokeKey(String tenantId, String keyId, Instant at) throws SQLException;

    @Override
    void close();
}
