package io.engram.service;

import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/** {@link UsageLedger} in PostgreSQL's {@code usage_daily}: each addition one upsert per row, in one transaction. */
final class PostgresUsageLedger implements UsageLedger {

    private static final String COLUMNS = "tenant_id, day, records_written, bytes_written, writes, reads, contexts,"
            + " forgets, embed_millis";
    private static final String ADD = "INSERT INTO usage_daily (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            + " ON CONFLICT (tenant_id, day) DO UPDATE SET"
            + " records_written = usage_daily.records_written + excluded.records_written,"
            + " bytes_written = usage_daily.bytes_written + excluded.bytes_written,"
            + " writes = usage_daily.writes + excluded.writes, reads = usage_daily.reads + excluded.reads,"
            + " contexts = usage_daily.contexts + excluded.contexts, forgets = usage_daily.forgets + excluded.forgets,"
            + " embed_millis = usage_daily.embed_millis + excluded.embed_millis RETURNING " + COLUMNS;

    private final Jdbc jdbc;

    PostgresUsageLedger(Jdbc jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    public List<Usage> add(List<Usage> increments) throws SQLException {
        return jdbc.transaction(c -> {
            List<Usage> totals = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(ADD)) {
                for (Usage u : increments) {
                    ps.setString(1, u.tenantId());
                    ps.setDate(2, Date.valueOf(u.day()));
                    long[] counts = {u.recordsWritten(), u.bytesWritten(), u.writes(), u.reads(), u.contexts(),
                            u.forgets(), u.embedMillis()};
                    for (int i = 0; i < counts.length; i++) {
                        ps.setLong(3 + i, counts[i]);
                    }
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        totals.add(usage(rs));
                    }
                }
            }
            return totals;
        });
    }

    @Override
    public List<Usage> rows(String tenantId, LocalDate from, LocalDate to) throws SQLException {
        return jdbc.work(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM usage_daily WHERE day BETWEEN ? AND ?"
                    + (tenantId == null ? "" : " AND tenant_id = ?") + " ORDER BY tenant_id, day")) {
                ps.setDate(1, Date.valueOf(from));
                ps.setDate(2, Date.valueOf(to));
                if (tenantId != null) {
                    ps.setString(3, tenantId);
                }
                List<Usage> rows = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows.add(usage(rs));
                    }
                }
                return rows;
            }
        });
    }

    private static Usage usage(ResultSet rs) throws SQLException {
        return new Usage(rs.getString(1), rs.getDate(2).toLocalDate(), rs.getLong(3), rs.getLong(4), rs.getLong(5),
                rs.getLong(6), rs.getLong(7), rs.getLong(8), rs.getLong(9));
    }

    @Override
    public void close() {
        jdbc.close();
    }
}
