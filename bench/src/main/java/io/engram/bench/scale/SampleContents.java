package io.engram.bench.scale;

import io.engram.model.retrieval.MemoryRecord;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What a run left for a sample of tenants — every OpenSearch document (vector included, as a hash) and every row of
 * the collapse detector's three PostgreSQL tables — in a form two runs compare line by line: RunCrashTest's
 * comparison, for the bench's killed run against a run that never died.
 */
record SampleContents(Map<String, List<String>> documents, Map<String, List<String>> rows) {

    private static final List<String> TABLES = List.of("cycle_metrics", "collapse_alerts", "canary_queries");

    /** The tenants' documents in {@code index} and their rows; the rows are deleted once read when {@code take}. */
    static SampleContents read(String openSearch, String index, String postgres, List<String> tenants, boolean take)
            throws SQLException {
        Map<String, List<String>> documents = new TreeMap<>();
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearch, index, RetryPolicy.DEFAULT)) {
            store.refresh();
            for (String tenant : tenants) {
                documents.put(tenant, store.find(tenant, Map.of(), Set.of(), 10_000, null, true).stream()
                        .map(SampleContents::line).sorted().toList());
            }
        }
        Map<String, List<String>> rows = new TreeMap<>();
        String in = tenants.stream().map(t -> "'" + t + "'").collect(Collectors.joining(","));
        try (Connection c = DriverManager.getConnection(postgres, "postgres", ""); Statement s = c.createStatement()) {
            for (String table : TABLES) {
                List<String> lines = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT * FROM " + table + " WHERE tenant_id IN (" + in + ")")) {
                    while (rs.next()) {
                        StringBuilder line = new StringBuilder();
                        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                            line.append(rs.getObject(i)).append('|');
                        }
                        lines.add(line.toString());
                    }
                }
                lines.sort(null);
                rows.put(table, lines);
                if (take) {
                    s.executeUpdate("DELETE FROM " + table + " WHERE tenant_id IN (" + in + ")");
                }
            }
        }
        return new SampleContents(documents, rows);
    }

    private static String line(MemoryRecord r) {
        return String.join("|", r.id(), r.type().label(), String.valueOf(r.tier()), String.valueOf(r.generation()),
                String.valueOf(r.docVersion()), String.valueOf(r.position()), String.valueOf(r.tokens()),
                String.valueOf(r.sessionId()), String.valueOf(r.userId()), String.valueOf(r.ts()),
                String.valueOf(r.sourceRefs()), String.valueOf(r.supersededBy()),
                Integer.toHexString(Arrays.hashCode(r.embedding())), r.text());
    }

    /** Records in all, and rows in all. */
    long documentCount() {
        return documents.values().stream().mapToLong(List::size).sum();
    }

    long rowCount() {
        return rows.values().stream().mapToLong(List::size).sum();
    }

    /** What differs from {@code expected}, one line per tenant or table that differs (with a first difference). */
    List<String> differences(SampleContents expected) {
        List<String> out = new ArrayList<>();
        compare("documents of ", documents, expected.documents, out);
        compare("rows of ", rows, expected.rows, out);
        return out;
    }

    private static void compare(String what, Map<String, List<String>> actual, Map<String, List<String>> expected,
                                List<String> out) {
        for (String key : expected.keySet()) {
            List<String> a = actual.getOrDefault(key, List.of());
            List<String> e = expected.get(key);
            if (!a.equals(e)) {
                List<String> missing = new ArrayList<>(e);
                missing.removeAll(a);
                List<String> extra = new ArrayList<>(a);
                extra.removeAll(e);
                out.add(what + key + ": " + a.size() + " vs " + e.size() + " expected; missing "
                        + missing.stream().limit(2).toList() + ", extra " + extra.stream().limit(2).toList());
            }
        }
    }
}
