package io.engram.service;

import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@link TenantStore} in memory, for the service's unit tests; {@link TenantStoreContractTest} holds it to
 * {@link PostgresTenantStore}.
 */
final class InMemoryTenantStore implements TenantStore {

    private record Held(Key key, String digestHex, Instant revokedAt) {
    }

    private final Map<String, Tenant> tenants = new TreeMap<>();
    private final Map<String, Held> keys = new LinkedHashMap<>();
    private long version;

    @Override
    public synchronized long version() {
        return version;
    }

    @Override
    public synchronized Snapshot load() {
        Map<String, Key> live = new LinkedHashMap<>();
        keys.values().stream().filter(h -> h.revokedAt() == null)
                .sorted(java.util.Comparator.comparing((Held h) -> h.key().createdAt()).thenComparing(h -> h.key().keyId()))
                .forEach(h -> live.put(h.digestHex(), h.key()));
        return new Snapshot(version, new LinkedHashMap<>(tenants), live);
    }

    @Override
    public synchronized boolean createTenant(String tenantId, Quotas quotas, Instant at) {
        version++;
        return tenants.putIfAbsent(tenantId, new Tenant(tenantId, Status.ACTIVE, at, quotas, null)) == null;
    }

    @Override
    public synchronized boolean updateTenant(String tenantId, Status status, Quotas quotas) {
        version++;
        Tenant t = tenants.get(tenantId);
        if (t == null || t.status() == Status.DELETING) {
            return false;
        }
        tenants.put(tenantId, new Tenant(tenantId, status == null ? t.status() : status, t.createdAt(),
                quotas.or(t.quotas()), null));
        return true;
    }

    @Override
    public synchronized String markDeleting(String tenantId, String forgetId, Instant at) {
        version++;
        Tenant t = tenants.getOrDefault(tenantId, new Tenant(tenantId, Status.ACTIVE, at, Quotas.DEFAULTS, null));
        String id = t.deletionForgetId() != null ? t.deletionForgetId() : forgetId;
        tenants.put(tenantId, new Tenant(tenantId, Status.DELETING, t.createdAt(), t.quotas(), id));
        keys.replaceAll((keyId, h) -> h.key().tenantId().equals(tenantId) && h.revokedAt() == null
                ? new Held(h.key(), h.digestHex(), at) : h);
        return id;
    }

    @Override
    public synchronized void createKey(Key key, byte[] digest, String replacesKeyId) {
        version++;
        if (replacesKeyId != null) {
            revoke(key.tenantId(), replacesKeyId, key.createdAt());
        }
        String hex = HexFormat.of().formatHex(digest);
        if (keys.containsKey(key.keyId()) || keys.values().stream().anyMatch(h -> h.digestHex().equals(hex))) {
            throw new IllegalStateException("a key of this id or digest exists");
        }
        keys.put(key.keyId(), new Held(key, hex, null));
    }

    @Override
    public synchronized boolean revokeKey(String tenantId, String keyId, Instant at) {
        version++;
        return revoke(tenantId, keyId, at);
    }

    private boolean revoke(String tenantId, String keyId, Instant at) {
        Held h = keys.get(keyId);
        if (h == null || h.revokedAt() != null || !h.key().tenantId().equals(tenantId)) {
            return false;
        }
        keys.put(keyId, new Held(h.key(), h.digestHex(), at));
        return true;
    }

    @Override
    public void close() {
    }
}
