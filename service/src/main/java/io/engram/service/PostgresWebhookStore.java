package io.engram.service;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/** {@link WebhookStore} in PostgreSQL: the tables {@code webhooks}, {@code webhook_queue} and {@code webhook_deliveries}. */
final class PostgresWebhookStore implements WebhookStore {

    private static final String REGISTERED = "SELECT w.webhook_id, w.tenant_id, w.url, w.kinds, w.description, w.secret,"
            + " w.created_at, w.paused_at, w.pause_reason, w.failures_in_row, w.failing_since, w.next_attempt_at,"
            + " w.last_delivered_at, (SELECT count(*) FROM webhook_queue q WHERE q.webhook_id = w.webhook_id)"
            + " FROM webhooks w";

    private final Jdbc jdbc;

    PostgresWebhookStore(Jdbc jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    public void create(Webhook w) throws SQLException {
        jdbc.update("INSERT INTO webhooks (webhook_id, tenant_id, url, kinds, description, secret, created_at)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?)", w.webhookId(), w.tenantId(), w.url(), String.join(",", w.kinds()),
                w.description(), w.secret(), Timestamp.from(w.createdAt()));
    }

    @Override
    public List<Registered> list(String tenantId) throws SQLException {
        return registered(REGISTERED + " WHERE w.tenant_id = ? ORDER BY w.created_at, w.webhook_id", tenantId);
    }

    @Override
    public Optional<Registered> find(String webhookId) throws SQLException {
        return registered(REGISTERED + " WHERE w.webhook_id = ?", webhookId).stream().findFirst();
    }

    private List<Registered> registered(String sql, String value) throws SQLException {
        return jdbc.work(c -> {
            List<Registered> found = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setString(1, value);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        found.add(registered(rs));
                    }
                }
            }
            return found;
        });
    }

    private static Registered registered(ResultSet rs) throws SQLException {
        Set<String> kinds = new TreeSet<>(Arrays.asList(rs.getString(4).split(",")));
        kinds.remove("");
        Webhook webhook = new Webhook(rs.getString(1), rs.getString(2), rs.getString(3), kinds, rs.getString(5),
                rs.getString(6), rs.getTimestamp(7).toInstant());
        Instant pausedAt = instant(rs, 8);
        Pause pause = pausedAt == null ? null : new Pause(pausedAt, rs.getString(9));
        return new Registered(webhook, new State(pause, rs.getInt(10), instant(rs, 11), instant(rs, 12),
                instant(rs, 13), rs.getLong(14)));
    }

    private static Instant instant(ResultSet rs, int column) throws SQLException {
        Timestamp t = rs.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }

    private static Timestamp timestamp(Instant at) {
        return at == null ? null : Timestamp.from(at);
    }

    @Override
    public boolean delete(String tenantId, String webhookId) throws SQLException {
        return jdbc.update("DELETE FROM webhooks WHERE tenant_id = ? AND webhook_id = ?", tenantId, webhookId) == 1;
    }

    @Override
    public boolean resume(String tenantId, String webhookId) throws SQLException {
        return jdbc.update("UPDATE webhooks SET paused_at = NULL, pause_reason = NULL, failures_in_row = 0,"
                + " failing_since = NULL, next_attempt_at = NULL WHERE tenant_id = ? AND webhook_id = ?",
                tenantId, webhookId) == 1;
    }

    @Override
    public void deleteTenant(String tenantId) throws SQLException {
        jdbc.update("DELETE FROM webhooks WHERE tenant_id = ?", tenantId);
    }

    @Override
    public List<Attempt> deliveries(String webhookId, int limit) throws SQLException {
        return jdbc.work(c -> {
            List<Attempt> attempts = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT change_id, kind, attempt, status_code, error, at"
                    + " FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id DESC LIMIT ?")) {
                ps.setString(1, webhookId);
                ps.setInt(2, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        attempts.add(new Attempt(rs.getString(1), rs.getString(2), rs.getInt(3),
                                rs.getObject(4, Integer.class), rs.getString(5), rs.getTimestamp(6).toInstant()));
                    }
                }
            }
            return attempts;
        });
    }

    /** A change for the tenant's webhooks that take its kind and have not queued its offset of its partition. */
    private static final String ENQUEUE = "WITH targets AS (SELECT w.webhook_id FROM webhooks w LEFT JOIN webhook_offsets o"
            + " ON o.webhook_id = w.webhook_id AND o.change_partition = ? WHERE w.tenant_id = ?"
            + " AND (w.kinds = '' OR ? = ANY(string_to_array(w.kinds, ','))) AND (o.next_offset IS NULL OR o.next_offset <= ?)),"
            + " marked AS (INSERT INTO webhook_offsets (webhook_id, change_partition, next_offset)"
            + " SELECT webhook_id, ?, ? FROM targets ON CONFLICT (webhook_id, change_partition)"
            + " DO UPDATE SET next_offset = GREATEST(webhook_offsets.next_offset, EXCLUDED.next_offset)),"
            + " queued AS (INSERT INTO webhook_queue (webhook_id, change_partition, change_offset, change_id, kind, body,"
            + " enqueued_at) SELECT webhook_id, ?, ?, ?, ?, ?, ? FROM targets ON CONFLICT DO NOTHING RETURNING 1)"
            + " SELECT count(*) FROM queued";

    @Override
    public int enqueue(List<Change> changes, Instant at) throws SQLException {
        return jdbc.transaction(c -> {
            int added = 0;
            try (PreparedStatement ps = c.prepareStatement(ENQUEUE)) {
                for (Change change : changes) {
                    Object[] values = {change.partition(), change.tenantId(), change.kind(), change.offset(),
                            change.partition(), change.offset() + 1, change.partition(), change.offset(),
                            change.changeId(), change.kind(), change.body(), Timestamp.from(at)};
                    for (int i = 0; i < values.length; i++) {
                        ps.setObject(i + 1, values[i]);
                    }
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        added += rs.getInt(1);
                    }
                }
            }
            return added;
        });
    }

    @Override
    public List<String> due(String owner, Instant now, int limit) throws SQLException {
        return jdbc.work(c -> {
            List<String> due = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT w.webhook_id FROM webhooks w WHERE w.paused_at IS NULL"
                    + " AND (w.next_attempt_at IS NULL OR w.next_attempt_at <= ?)"
                    + " AND (w.lease_owner IS NULL OR w.lease_owner = ? OR w.lease_until < ?)"
                    + " AND EXISTS (SELECT 1 FROM webhook_queue q WHERE q.webhook_id = w.webhook_id)"
                    + " ORDER BY w.lease_until NULLS FIRST, w.webhook_id LIMIT ?")) {
                ps.setTimestamp(1, Timestamp.from(now));
                ps.setString(2, owner);
                ps.setTimestamp(3, Timestamp.from(now));
                ps.setInt(4, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        due.add(rs.getString(1));
                    }
                }
            }
            return due;
        });
    }

    @Override
    public boolean lease(String webhookId, String owner, Instant now, Instant until) throws SQLException {
        return jdbc.update("UPDATE webhooks SET lease_owner = ?, lease_until = ? WHERE webhook_id = ? AND paused_at IS NULL"
                + " AND (lease_owner IS NULL OR lease_owner = ? OR lease_until < ?)", owner, Timestamp.from(until),
                webhookId, owner, Timestamp.from(now)) == 1;
    }

    @Override
    public void release(String webhookId, String owner) throws SQLException {
        jdbc.update("UPDATE webhooks SET lease_owner = NULL WHERE webhook_id = ? AND lease_owner = ?",
                webhookId, owner);
    }

    @Override
    public Optional<Queued> head(String webhookId) throws SQLException {
        return jdbc.work(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT change_partition, change_offset, change_id, kind, body,"
                    + " attempts FROM webhook_queue WHERE webhook_id = ? ORDER BY change_partition, change_offset LIMIT 1")) {
                ps.setString(1, webhookId);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(new Queued(rs.getInt(1), rs.getLong(2), rs.getString(3),
                            rs.getString(4), rs.getString(5), rs.getInt(6))) : Optional.empty();
                }
            }
        });
    }

    @Override
    public void delivered(String webhookId, Queued change, Attempt attempt, int keep) throws SQLException {
        jdbc.transaction(c -> {
            Jdbc.update(c, "DELETE FROM webhook_queue WHERE webhook_id = ? AND change_partition = ? AND change_offset = ?",
                    webhookId, change.partition(), change.offset());
            Jdbc.update(c, "UPDATE webhooks SET failures_in_row = 0, failing_since = NULL, next_attempt_at = NULL,"
                    + " last_delivered_at = ? WHERE webhook_id = ?", Timestamp.from(attempt.at()), webhookId);
            return log(c, webhookId, attempt, keep);
        });
    }

    @Override
    public void failed(String webhookId, Queued change, Attempt attempt, Instant nextAttempt, Pause pause, int keep)
            throws SQLException {
        jdbc.transaction(c -> {
            Jdbc.update(c, "UPDATE webhook_queue SET attempts = attempts + 1 WHERE webhook_id = ? AND change_partition = ?"
                    + " AND change_offset = ?", webhookId, change.partition(), change.offset());
            Jdbc.update(c, "UPDATE webhooks SET failures_in_row = failures_in_row + 1,"
                    + " failing_since = COALESCE(failing_since, ?), next_attempt_at = ?,"
                    + " paused_at = COALESCE(CAST(? AS TIMESTAMPTZ), paused_at),"
                    + " pause_reason = COALESCE(CAST(? AS TEXT), pause_reason) WHERE webhook_id = ?",
                    Timestamp.from(attempt.at()), Timestamp.from(nextAttempt),
                    pause == null ? null : timestamp(pause.since()), pause == null ? null : pause.reason(), webhookId);
            return log(c, webhookId, attempt, keep);
        });
    }

    /** Logs the attempt of a webhook not deleted meanwhile, and drops what is older than its newest {@code keep}. */
    private static int log(Connection c, String webhookId, Attempt a, int keep) throws SQLException {
        Jdbc.update(c, "INSERT INTO webhook_deliveries (webhook_id, change_id, kind, attempt, status_code, error, at)"
                + " SELECT ?, ?, ?, ?, CAST(? AS INT), CAST(? AS TEXT), ? WHERE EXISTS"
                + " (SELECT 1 FROM webhooks WHERE webhook_id = ?)", webhookId, a.changeId(), a.kind(), a.attempt(),
                a.status(), a.error(), Timestamp.from(a.at()), webhookId);
        return Jdbc.update(c, "DELETE FROM webhook_deliveries WHERE webhook_id = ? AND id <= (SELECT id FROM"
                + " webhook_deliveries WHERE webhook_id = ? ORDER BY id DESC OFFSET ? LIMIT 1)", webhookId, webhookId, keep);
    }

    @Override
    public void close() {
        jdbc.close();
    }
}
