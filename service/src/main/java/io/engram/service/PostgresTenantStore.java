package io.engram.service;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@link TenantStore} in PostgreSQL: the tables {@code tenants}, {@code api_keys} and {@code directory_version}. */
final class PostgresTenantStore implements TenantStore {

    private static final String BUMP = "UPDATE directory_version SET version = version + 1 WHERE id = 1";

    private final Jdbc jdbc;

    PostgresTenantStore(Jdbc jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    public long version() throws SQLException {
        return jdbc.work(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT version FROM directory_version WHERE id = 1");
                 ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0L;
            }
        });
    }

    @Override
    public Snapshot load() throws SQLException {
        // read in one transaction, so the version names exactly the tenants and keys read with it
        return jdbc.transaction(c -> {
            long version;
            try (PreparedStatement ps = c.prepareStatement("SELECT version FROM directory_version WHERE id = 1");
                 ResultSet rs = ps.executeQuery()) {
                version = rs.next() ? rs.getLong(1) : 0L;
            }
            return new Snapshot(version, tenants(c), keys(c));
        });
    }

    private static Map<String, Tenant> tenants(Connection c) throws SQLException {
        Map<String, Tenant> tenants = new LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT tenant_id, status, created_at, max_records,"
                + " max_text_bytes_day, writes_per_second, reads_per_second, deletion_forget_id FROM tenants"
                + " ORDER BY tenant_id"); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                Quotas quotas = new Quotas(rs.getObject(4, Long.class), rs.getObject(5, Long.class),
                        rs.getObject(6, Double.class), rs.getObject(7, Double.class));
                tenants.put(rs.getString(1), new Tenant(rs.getString(1), Status.ofLabel(rs.getString(2)),
                        rs.getTimestamp(3).toInstant(), quotas, rs.getString(8)));
            }
        }
        return tenants;
    }

    private static Map<String, Key> keys(Connection c) throws SQLException {
        Map<String, Key> keys = new LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT key_id, tenant_id, name, scopes, created_at, expires_at,"
                + " digest FROM api_keys WHERE revoked_at IS NULL ORDER BY created_at, key_id");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                Timestamp expires = rs.getTimestamp(6);
                keys.put(HexFormat.of().formatHex(rs.getBytes(7)), new Key(rs.getString(1), rs.getString(2),
                        rs.getString(3), Scope.parse(rs.getString(4)), rs.getTimestamp(5).toInstant(),
                        expires == null ? null : expires.toInstant()));
            }
        }
        return keys;
    }

    @Override
    public boolean createTenant(String tenantId, Quotas quotas, Instant at) throws SQLException {
        return jdbc.transaction(c -> {
            int inserted = Jdbc.update(c, "INSERT INTO tenants (tenant_id, status, created_at, max_records,"
                    + " max_text_bytes_day, writes_per_second, reads_per_second) VALUES (?, 'active', ?, ?, ?, ?, ?)"
                    + " ON CONFLICT (tenant_id) DO NOTHING", tenantId, Timestamp.from(at), quotas.records(),
                    quotas.textBytesPerDay(), quotas.writesPerSecond(), quotas.readsPerSecond());
            Jdbc.update(c, BUMP);
            return inserted == 1;
        });
    }

    @Override
    public boolean updateTenant(String tenantId, Status status, Quotas quotas) throws SQLException {
        return jdbc.transaction(c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE tenants SET status = COALESCE(?, status),"
                    + " max_records = COALESCE(?, max_records), max_text_bytes_day = COALESCE(?, max_text_bytes_day),"
                    + " writes_per_second = COALESCE(?, writes_per_second),"
                    + " reads_per_second = COALESCE(?, reads_per_second) WHERE tenant_id = ? AND status <> 'deleting'")) {
                ps.setString(1, status == null ? null : status.label());
                setNullable(ps, 2, quotas.records(), Types.BIGINT);
                setNullable(ps, 3, quotas.textBytesPerDay(), Types.BIGINT);
                setNullable(ps, 4, quotas.writesPerSecond(), Types.DOUBLE);
                setNullable(ps, 5, quotas.readsPerSecond(), Types.DOUBLE);
                ps.setString(6, tenantId);
                boolean updated = ps.executeUpdate() == 1;
                Jdbc.update(c, BUMP);
                return updated;
            }
        });
    }

    private static void setNullable(PreparedStatement ps, int index, Object value, int type) throws SQLException {
        if (value == null) {
            ps.setNull(index, type);
        } else {
            ps.setObject(index, value);
        }
    }

    @Override
    public String markDeleting(String tenantId, String forgetId, Instant at) throws SQLException {
        return jdbc.transaction(c -> {
            Jdbc.update(c, "INSERT INTO tenants (tenant_id, status, created_at) VALUES (?, 'active', ?)"
                    + " ON CONFLICT (tenant_id) DO NOTHING", tenantId, Timestamp.from(at));
            Jdbc.update(c, "UPDATE tenants SET status = 'deleting', deletion_forget_id = COALESCE(deletion_forget_id, ?)"
                    + " WHERE tenant_id = ?", forgetId, tenantId);
            Jdbc.update(c, "UPDATE api_keys SET revoked_at = ? WHERE tenant_id = ? AND revoked_at IS NULL",
                    Timestamp.from(at), tenantId);
            Jdbc.update(c, BUMP);
            try (PreparedStatement ps = c.prepareStatement("SELECT deletion_forget_id FROM tenants WHERE tenant_id = ?")) {
                ps.setString(1, tenantId);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getString(1);
                }
            }
        });
    }

    @Override
    public void createKey(Key key, byte[] digest, String replacesKeyId) throws SQLException {
        jdbc.transaction(c -> {
            if (replacesKeyId != null) {
                Jdbc.update(c, "UPDATE api_keys SET revoked_at = ? WHERE tenant_id = ? AND key_id = ? AND revoked_at IS NULL",
                        Timestamp.from(key.createdAt()), key.tenantId(), replacesKeyId);
            }
            Jdbc.update(c, "INSERT INTO api_keys (key_id, tenant_id, name, scopes, digest, created_at, expires_at)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?)", key.keyId(), key.tenantId(), key.name(), Scope.labels(key.scopes()),
                    digest, Timestamp.from(key.createdAt()), key.expiresAt() == null ? null : Timestamp.from(key.expiresAt()));
            return Jdbc.update(c, BUMP);
        });
    }

    @Override
    public boolean revokeKey(String tenantId, String keyId, Instant at) throws SQLException {
        return jdbc.transaction(c -> {
            int revoked = Jdbc.update(c, "UPDATE api_keys SET revoked_at = ? WHERE tenant_id = ? AND key_id = ?"
                    + " AND revoked_at IS NULL", Timestamp.from(at), tenantId, keyId);
            Jdbc.update(c, BUMP);
            return revoked == 1;
        });
    }

    @Override
    public void close() {
        jdbc.close();
    }
}
