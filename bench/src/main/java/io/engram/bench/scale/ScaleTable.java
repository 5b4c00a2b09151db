package io.engram.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.Locale;

/** The report of {@code ./engram bench scale} as Markdown tables, each saying which embedder loaded the records. */
final class ScaleTable {

    private final PrintWriter out;

    ScaleTable(PrintWriter out) {
        this.out = out;
    }

    void print(JsonNode r) {
        String embedder = r.get("embedder").asText();
        out.printf(Locale.ROOT, "%n%,d tenants, %,d records (largest %,d, median %,d, smallest %,d); %s%n%n",
                r.get("tenants").asInt(), r.get("records").asLong(), r.get("largest").asInt(), r.get("median").asInt(),
                r.get("smallest").asInt(), embedder);
        header("pipeline, " + embedder);
        row("ingest, records/s (job on 1 slot)", "%.0f", r.at("/ingest/records_per_second"));
        row("job CPU per record, µs (embedding included)", "%.0f", r.at("/ingest/cpu_micros_per_record"));
        if (r.at("/ingest/standin_micros_per_text").asDouble() > 0) {
            row("  of which the stand-in embedder, µs per text", "%.1f", r.at("/ingest/standin_micros_per_text"));
        }
        row("servers' CPU per record, µs (OpenSearch, Kafka, PostgreSQL)", "%.0f", r.at("/ingest/servers_cpu_micros_per_record"));
        row("Flink state (RocksDB), total MB", "%.1f", mb(r.at("/checkpoint/state_bytes")));
        row("state per tenant, KB", "%.1f", r.at("/checkpoint/state_bytes_per_tenant").asDouble() / 1024);
        row("state per record, B", "%.0f", r.at("/checkpoint/state_bytes_per_record"));
        row("checkpoint after the load, incremental: ms", "%.0f", r.at("/checkpoint/incremental_ms"));
        row("  written, MB", "%.2f", mb(r.at("/checkpoint/incremental_written_bytes")));
        row("full checkpoint: ms", "%.0f", r.at("/checkpoint/full_ms"));
        row("  written, MB", "%.1f", mb(r.at("/checkpoint/full_written_bytes")));
        row("job heap live after a full GC at 30 % of the load, MB", "%.0f", mb(r.at("/job_heap/live_bytes_at_30_percent")));
        row("  at 60 %, the same process, MB", "%.0f", mb(r.at("/job_heap/live_bytes_at_60_percent")));
        row("job heap live after a full GC, MB (of -Xmx " + r.at("/job_heap/max").asText() + ")", "%.0f",
                mb(r.at("/job_heap/live_bytes_after_full_gc")));
        for (JsonNode held : r.at("/job_heap/largest_after_load")) {
            row("  held by " + held.get("className").asText() + " (" + held.get("instances").asLong() + "), MB", "%.1f",
                    mb(held.get("bytes")));
        }
        row("restore after kill -9 mid-load: tasks running, s", "%.1f", secs(r.at("/restore_mid_load/tasks_running_ms")));
        row("  first checkpoint after it, s", "%.1f", secs(r.at("/restore_mid_load/first_checkpoint_ms")));
        row("restore after kill -9 at full size: tasks running, s", "%.1f", secs(r.at("/restore_full/tasks_running_ms")));
        row("  first checkpoint after it, s", "%.1f", secs(r.at("/restore_full/first_checkpoint_ms")));
        header("correctness, " + embedder);
        row("tenants whose searchable count differs from what was sent", "%.0f", r.at("/correctness/tenants_with_count_mismatch"));
        row("tenants without their document's chunks", "%.0f", r.at("/correctness/tenants_without_document_chunks"));
        row("sample tenants compared after the kills", "%.0f", r.at("/correctness/sample_tenants"));
        row("  documents and rows compared", "%.0f", r.at("/correctness/sample_documents").asDouble()
                + r.at("/correctness/sample_rows").asDouble());
        row("  differences from the run without a kill", "%.0f", r.at("/correctness/sample_differences"));
        row("cross-tenant reads", "%.0f", r.at("/cross_tenant/reads"));
        row("  foreign records in their answers", "%.0f", r.at("/cross_tenant/foreign_records"));
        header("OpenSearch, " + embedder);
        row("bytes per document on disk", "%.0f", r.at("/index/bytes_per_document"));
        row("bytes per record sent (chunks and summaries included)", "%.0f", r.at("/index/bytes_per_record_sent"));
        row("segments", "%.0f", r.at("/index/segments"));
        row("node heap used, MB (the bench's JVM)", "%.0f", mb(r.at("/index/node_heap_used_bytes")));
        row("vector kept in the vector files only (k-NN derived source): 1 = yes", "%.0f",
                r.at("/index/derived_source").asBoolean() ? 1 : 0);
        row("copies merged to one segment a shard: bytes per document, vector in _source too", "%.0f",
                r.at("/layouts/source_vectors/bytes_per_document"));
        row("  vector in the vector files only (derived source)", "%.0f", r.at("/layouts/derived_source/bytes_per_document"));
        row("  derived source saves", "%.0f %%", r.at("/layouts/derived_source_saves").asDouble() * 100);
        reads(r, "reads", "reads, ms p50 / p95 / p99, " + embedder);
        reads(r, "layout_reads", "reads on the two copies, one client, layouts alternating, ms p50 / p95 / p99");
        header("operations, " + embedder);
        row("forget of a user (" + r.at("/forget/user_records_sent").asLong() + " records): s to done", "%.1f",
                r.at("/forget/seconds_to_done"));
        row("  user's records left", "%.0f", r.at("/forget/user_records_left"));
        row("cycle close of the largest tenant: s to its row", "%.1f", r.at("/cycle_close/seconds_to_row"));
        row("./engram status: s (a JVM of its own)", "%.1f", r.at("/operator/status_seconds"));
        row("console: tenant directory, ms (slowest of 5)", "%.0f", r.at("/operator/tenants_ms"));
        row("console: a tenant's health, ms", "%.0f", r.at("/operator/health_ms"));
        row("console: a tenant's records, ms", "%.0f", r.at("/operator/records_ms"));
        if (r.has("real_model")) {
            header("the stand-in against the default model, " + r.at("/real_model/records").asLong() + " records");
            row("stand-in embedder, records/s", "%.0f", r.at("/real_model/standin_records_per_second"));
            row(r.at("/real_model/model").asText() + ", records/s", "%.1f", r.at("/real_model/model_records_per_second"));
            row("ratio", "%.1f", r.at("/real_model/standin_over_model"));
            row("job CPU per record with the model, µs", "%.0f", r.at("/real_model/model_cpu_micros_per_record"));
            row("OpenSearch bytes per document, the model's dense vectors", "%.0f", r.at("/real_model/index/bytes_per_document"));
        }
        out.flush();
    }

    private void reads(JsonNode r, String field, String title) {
        if (!r.has(field)) {
            return;
        }
        header(title);
        for (JsonNode run : r.get(field)) {
            String who = String.format(Locale.ROOT, "%s (%,d records), %d client(s)%s", run.get("tenant").asText(),
                    run.get("records").asInt(), run.get("clients").asInt(),
                    run.has("layout") ? ", " + run.get("layout").asText() + " round " + run.get("round").asInt() : "");
            for (String kind : ReadLatency.KINDS) {
                JsonNode k = run.get(kind);
                out.printf(Locale.ROOT, "| %s: %s | %.1f / %.1f / %.1f |%n", who, kind, k.get("p50").asDouble(),
                        k.get("p95").asDouble(), k.get("p99").asDouble());
            }
            row(who + ": context p95 ÷ (k-NN p95 + BM25 p95)", "%.2f", run.get("context_p95_over_floor"));
            StringBuilder stages = new StringBuilder();
            run.at("/context/stages").properties().forEach(e -> stages.append(String.format(Locale.ROOT, " %s %.1f/%.1f",
                    e.getKey(), e.getValue().get("p50").asDouble(), e.getValue().get("p95").asDouble())));
            out.printf(Locale.ROOT, "| %s: context in the service, p50/p95 |%s |%n", who, stages);
        }
    }

    private void header(String title) {
        out.printf(Locale.ROOT, "%n| %s | |%n|---|---|%n", title);
    }

    private void row(String label, String format, JsonNode value) {
        row(label, format, value.asDouble());
    }

    /** A value not measured (NaN) shows as a dash. */
    private void row(String label, String format, double value) {
        out.printf(Locale.ROOT, "| %s | %s |%n", label, Double.isNaN(value) ? "—" : String.format(Locale.ROOT, format, value));
    }

    private static double mb(JsonNode bytes) {
        return bytes.isNull() || bytes.isMissingNode() ? Double.NaN : bytes.asDouble() / (1 << 20);
    }

    private static double secs(JsonNode millis) {
        return millis.asDouble() / 1e3;
    }
}
