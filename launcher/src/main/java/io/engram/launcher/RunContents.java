package io.engram.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.store.MemoryReader;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a run left for some tenants, one line per OpenSearch document, per entity and per PostgreSQL row, to compare
 * runs of the same input: a document by every field of its source, its vector rounded to 1e-4 (a model's output, not
 * the pipeline's decision); an entity by its records and every name beside it, with theirs; a row of {@code cycle_metrics}, {@code canary_queries}, {@code collapse_alerts} and
 * {@code forgets} by every column but {@code forgets.completed_at}, the wall clock's.
 */
record RunContents(Map<String, List<String>> lines) {

    /** The tables compared, each with the columns left out. */
    private static final Map<String, Set<String>> TABLES = Map.of("cycle_metrics", Set.of(), "canary_queries", Set.of(),
            "collapse_alerts", Set.of(), "forgets", Set.of("completed_at"));
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The most documents one tenant may have here: OpenSearch's window of one search. */
    private static final int MAX_DOCUMENTS = 10_000;

    /** The tenants' documents in {@code index} and their rows in PostgreSQL at {@code postgresUrl}. */
    static RunContents read(String openSearchUrl, String index, String postgresUrl, String postgresUser,
                            List<String> tenants) throws Exception {
        Map<String, List<String>> lines = new TreeMap<>();
        List<String> documents = new ArrayList<>();
        List<String> entities = new ArrayList<>();
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearchUrl, index, RetryPolicy.DEFAULT)) {
            store.refresh();
            for (String tenant : tenants) {
                List<MemoryRecord> found = store.find(tenant, Map.of(), Set.of(), MAX_DOCUMENTS, null, true);
                if (found.size() >= MAX_DOCUMENTS) {
                    throw new IllegalStateException(tenant + " has more than " + MAX_DOCUMENTS + " documents: not compared whole");
                }
                for (MemoryRecord r : found) {
                    documents.add(r.id() + " " + JSON.writeValueAsString(withRoundedVector(r.toSource())));
                }
                entities.addAll(graph(store, tenant));
            }
        }
        documents.sort(null);
        lines.put("documents", documents);
        lines.put("entities", entities);
        try (Connection c = DriverManager.getConnection(postgresUrl, postgresUser, "")) {
            for (Map.Entry<String, Set<String>> table : new TreeMap<>(TABLES).entrySet()) {
                lines.put(table.getKey(), rows(c, table.getKey(), table.getValue(), tenants));
            }
        }
        return new RunContents(lines);
    }

    /** The tenant's entity graph: each entity, its records and the 50 names most often beside it with theirs. */
    private static List<String> graph(OpenSearchMemoryStore store, String tenant) {
        List<String> lines = new ArrayList<>();
        for (MemoryReader.Entity e : store.entities(tenant, Map.of(), MAX_DOCUMENTS, 50, 0)) {
            StringBuilder line = new StringBuilder(tenant).append(' ').append(e.name()).append('=').append(e.records());
            e.coMentions().forEach(c -> line.append(' ').append(c.name()).append('=').append(c.records()));
            lines.add(line.toString());
        }
        return lines;
    }

    private static Map<String, Object> withRoundedVector(Map<String, Object> source) {
        if (source.get("embedding") instanceof List<?> vector) {
            source.put("embedding", vector.stream().map(v -> Math.round(((Number) v).doubleValue() * 1e4)).toList());
        }
        return source;
    }

    private static List<String> rows(Connection c, String table, Set<String> leftOut, List<String> tenants)
            throws Exception {
        List<String> rows = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement("SELECT * FROM " + table + " WHERE tenant_id = ANY (?)")) {
            s.setArray(1, c.createArrayOf("text", tenants.toArray()));
            try (ResultSet rs = s.executeQuery()) {
                ResultSetMetaData meta = rs.getMetaData();
                while (rs.next()) {
                    StringBuilder row = new StringBuilder();
                    for (int i = 1; i <= meta.getColumnCount(); i++) {
                        if (!leftOut.contains(meta.getColumnName(i))) {
                            row.append(meta.getColumnName(i)).append('=').append(rs.getString(i)).append(' ');
                        }
                    }
                    rows.add(row.toString().trim());
                }
            }
        }
        rows.sort(null);
        return rows;
    }

    /** How many lines of each kind. */
    Map<String, Integer> counts() {
        Map<String, Integer> counts = new TreeMap<>();
        lines.forEach((kind, l) -> counts.put(kind, l.size()));
        return counts;
    }

    /** The lines of each kind this has and {@code other} lacks ({@code missing}: the other way round). */
    record Difference(Map<String, List<String>> extra, Map<String, List<String>> missing) {

        boolean none() {
            return extra.values().stream().allMatch(List::isEmpty) && missing.values().stream().allMatch(List::isEmpty);
        }

        int size() {
            return extra.values().stream().mapToInt(List::size).sum() + missing.values().stream().mapToInt(List::size).sum();
        }
    }

    Difference against(RunContents other) {
        Map<String, List<String>> extra = new TreeMap<>();
        Map<String, List<String>> missing = new TreeMap<>();
        Set<String> kinds = new HashSet<>(lines.keySet());
        kinds.addAll(other.lines.keySet());
        for (String kind : kinds) {
            List<String> mine = lines.getOrDefault(kind, List.of());
            List<String> theirs = other.lines.getOrDefault(kind, List.of());
            Set<String> theirSet = new HashSet<>(theirs);
            Set<String> mySet = new HashSet<>(mine);
            extra.put(kind, mine.stream().filter(l -> !theirSet.contains(l)).toList());
            missing.put(kind, theirs.stream().filter(l -> !mySet.contains(l)).toList());
        }
        return new Difference(extra, missing);
    }
}
