package io.engram.jobs.collapse;

import io.engram.jobs.store.ForgetCompleted;
import io.engram.model.collapse.CycleMetrics;
import io.engram.model.collapse.CycleRows;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import org.apache.flink.connector.jdbc.JdbcConnectionOptions;
import org.apache.flink.connector.jdbc.JdbcExecutionOptions;
import org.apache.flink.connector.jdbc.JdbcStatementBuilder;
import org.apache.flink.connector.jdbc.core.datastream.sink.JdbcSink;

/**
 * The pipeline's PostgreSQL sinks (tables from sql/migrations). Every statement is an upsert on the table's
 * primary key, so a replay after a restore rewrites the same rows: with deterministic rows, at-least-once
 * delivery leaves exactly one row per cycle.
 */
public final class MetricsJdbc {

    static final String UPSERT_CYCLE = "INSERT INTO cycle_metrics (tenant_id, cycle_id, ts, close_reason, canary_set_id,"
            + " canary_count, mean_recall, mean_ndcg, mean_mrr, canary_ranks_json, store_total, store_by_type_json,"
            + " distinct_content_ratio, mean_bigram_diversity, over_generation_count, accepted_actions,"
            + " merge_floor_violations, generation_guard_refusals, alerts_json)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            + " ON CONFLICT (tenant_id, cycle_id) DO UPDATE SET ts = EXCLUDED.ts, close_reason = EXCLUDED.close_reason,"
            + " canary_set_id = EXCLUDED.canary_set_id, canary_count = EXCLUDED.canary_count,"
            + " mean_recall = EXCLUDED.mean_recall, mean_ndcg = EXCLUDED.mean_ndcg, mean_mrr = EXCLUDED.mean_mrr,"
            + " canary_ranks_json = EXCLUDED.canary_ranks_json, store_total = EXCLUDED.store_total,"
            + " store_by_type_json = EXCLUDED.store_by_type_json,"
            + " distinct_content_ratio = EXCLUDED.distinct_content_ratio,"
            + " mean_bigram_diversity = EXCLUDED.mean_bigram_diversity,"
            + " over_generation_count = EXCLUDED.over_generation_count, accepted_actions = EXCLUDED.accepted_actions,"
            + " merge_floor_violations = EXCLUDED.merge_floor_violations,"
            + " generation_guard_refusals = EXCLUDED.generation_guard_refusals, alerts_json = EXCLUDED.alerts_json";

    static final String UPSERT_ALERT = "INSERT INTO collapse_alerts (tenant_id, cycle_id, kind, ts, canary_set_id, detail)"
            + " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tenant_id, cycle_id, kind) DO UPDATE SET ts = EXCLUDED.ts,"
            + " canary_set_id = EXCLUDED.canary_set_id, detail = EXCLUDED.detail";

    static final String INSERT_CANARY = "INSERT INTO canary_queries (tenant_id, canary_set_id, canary_id, anchor_ref,"
            + " anchor_type, query, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            + " ON CONFLICT (tenant_id, canary_set_id, canary_id) DO NOTHING";

    static final String UPSERT_FORGET = "INSERT INTO forgets (tenant_id, forget_id, scope, target, requested_at,"
            + " completed_at, records_removed) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant_id, forget_id) DO UPDATE"
            + " SET completed_at = COALESCE(forgets.completed_at, EXCLUDED.completed_at),"
            + " records_removed = GREATEST(COALESCE(forgets.records_removed, 0), EXCLUDED.records_removed)";

    private MetricsJdbc() {
    }

    public static JdbcSink<CycleMetrics> cycleMetrics(JdbcConnectionOptions connection) {
        return sink(connection, UPSERT_CYCLE, MetricsJdbc::bindCycle);
    }

    public static JdbcSink<FiredAlert> alerts(JdbcConnectionOptions connection) {
        return sink(connection, UPSERT_ALERT, (ps, a) -> {
            ps.setString(1, a.tenantId());
            ps.setString(2, a.cycleId());
            ps.setString(3, a.kind().label());
            ps.setTimestamp(4, Timestamp.from(a.ts()));
            ps.setString(5, a.canarySetId());
            ps.setString(6, a.detail());
        });
    }

    public static JdbcSink<MintedCanary> canaries(JdbcConnectionOptions connection) {
        return sink(connection, INSERT_CANARY, (ps, m) -> {
            ps.setString(1, m.tenantId());
            ps.setString(2, m.canarySetId());
            ps.setString(3, m.canary().id());
            ps.setString(4, m.canary().anchorRef());
            ps.setString(5, m.canary().anchorType().label());
            ps.setString(6, m.canary().query());
            ps.setString(7, "auto");
            ps.setTimestamp(8, Timestamp.from(m.createdAt()));
        });
    }

    /** Completed forgets: the first completion time and the largest count stay (a replay deletes nothing more). */
    public static JdbcSink<ForgetCompleted> forgets(JdbcConnectionOptions connection) {
        return sink(connection, UPSERT_FORGET, (ps, f) -> {
            ps.setString(1, f.tenantId());
            ps.setString(2, f.forgetId());
            ps.setString(3, f.scope());
            ps.setString(4, f.target());
            ps.setTimestamp(5, new Timestamp(f.requestedAtMillis()));
            ps.setTimestamp(6, new Timestamp(f.completedAtMillis()));
            ps.setLong(7, f.recordsRemoved());
        });
    }

    public static JdbcConnectionOptions connection(String url, String user, String password) {
        return new JdbcConnectionOptions.JdbcConnectionOptionsBuilder().withUrl(url).withDriverName("org.postgresql.Driver")
                .withUsername(user).withPassword(password).build();
    }

    private static <T> JdbcSink<T> sink(JdbcConnectionOptions connection, String sql, JdbcStatementBuilder<T> bind) {
        return JdbcSink.<T>builder().withQueryStatement(sql, bind)
                .withExecutionOptions(JdbcExecutionOptions.builder().withBatchSize(200).withBatchIntervalMs(200)
                        .withMaxRetries(10).build())
                .buildAtLeastOnce(connection);
    }

    static void bindCycle(PreparedStatement ps, CycleMetrics r) throws SQLException {
        var columns = CycleRows.toJson(r);
        ps.setString(1, r.tenantId());
        ps.setString(2, r.cycleId());
        ps.setTimestamp(3, Timestamp.from(r.ts()));
        ps.setString(4, r.closeReason());
        ps.setString(5, r.canarySetId());
        ps.setInt(6, r.canaryCount());
        ps.setDouble(7, r.meanRecall());
        ps.setDouble(8, r.meanNdcg());
        ps.setDouble(9, r.meanMrr());
        ps.setString(10, columns.get("canary_ranks_json").asText());
        ps.setLong(11, r.storeTotal());
        ps.setString(12, columns.get("store_by_type_json").asText());
        ps.setDouble(13, r.distinctContentRatio());
        ps.setDouble(14, r.meanBigramDiversity());
        ps.setLong(15, r.overGenerationCount());
        ps.setLong(16, r.acceptedActions());
        ps.setLong(17, r.mergeFloorViolations());
        ps.setLong(18, r.generationGuardRefusals());
        ps.setString(19, columns.get("alerts_json").asText());
    }
}
