package io.engram.bench.scale;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.bench.RawHttp;
import io.engram.bench.scale.ScaleCorpus.Tenant;
import io.engram.client.KafkaClients;
import io.engram.client.Topics;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * One run of {@code ./engram bench scale} on servers already running: tenants of Zipf sizes loaded through the
 * real pipeline ({@code ./engram run} as a process of its own: Kafka, the Flink job on RocksDB, OpenSearch,
 * PostgreSQL, embedding with the stand-in), killed with SIGKILL mid-load and at the end and restored, then measured
 * from outside: checkpoints, heap, the index, reads against their floor, cross-tenant reads, a forget, a cycle
 * close, the operator's views. A sample of small tenants is sent first and loaded alone by a run that never dies:
 * what the killed run leaves for them must be identical. The report is one JSON object ({@link ScaleTable} prints
 * it); correctness failures are in it, counted, not thrown, so a run reports everything it measured.
 */
final class ScaleRun {

    /** Event time of the first record: in the past, so no record is ahead of the wall clock. */
    static final Instant T0 = Instant.parse("2026-10-01T00:00:00Z");
    private static final Duration PATIENCE = Duration.ofHours(3);
    /** The classes holding the most of the job's heap that the report lists. */
    private static final int HELD_CLASSES = 12;
    /** Event time after the load, past every session's inactivity and every cycle's quiet gap. */
    static final Instant END = T0.plus(Duration.ofDays(30));

    /** What to load and where. */
    record Options(int tenants, long records, int largest, Path work, Path agentDocuments, String jobHeap,
                   String checkpointInterval, String embedModel, int realModelRecords, int queries, int crossTenantReads,
                   Instant readsNotBefore) {
    }

    private final Options options;
    private final RunSettings.Servers servers;
    private final PrintWriter progress;
    private final RawHttp http = new RawHttp();

    ScaleRun(Options options, RunSettings.Servers servers, PrintWriter progress) {
        this.options = options;
        this.servers = servers;
        this.progress = progress;
    }

    ObjectNode run() throws Exception {
        List<Tenant> tenants = ScaleCorpus.tenants(ZipfSizes.of(options.tenants(), options.records(), options.largest()));
        List<Tenant> sample = sample(tenants);
        List<Tenant> rest = new ArrayList<>(tenants);
        rest.removeAll(sample);
        ObjectNode report = RawHttp.JSON.createObjectNode().put("embedder", options.embedModel())
                .put("tenants", tenants.size()).put("records", options.records()).put("largest", tenants.get(0).records())
                .put("median", tenants.get(tenants.size() / 2).records()).put("smallest", tenants.get(tenants.size() - 1).records());
        Topics.create(KafkaClients.at(servers.kafka()), 2);
        // first: apart from the load, and from anything sharing the machine later; a run on the model has no ratio to take
        if (options.realModelRecords() > 0 && RunSettings.STANDIN.equals(options.embedModel())) {
            mark(report, "model");
            report.set("real_model", new RealModelRatio(servers, options.work(), options.jobHeap(), progress)
                    .measure(ScaleCorpus.over(options.agentDocuments()), options.realModelRecords()));
        }
        ScaleLoad load = new ScaleLoad(ScaleCorpus.over(options.agentDocuments()), new ScaleCorpus.EventClock(T0));
        long sentFrom = System.currentTimeMillis();

        // the sample alone, through a run that never dies: what the killed run must leave for these tenants
        List<String> sampleIds = sample.stream().map(Tenant::id).toList();
        ScaleLoad.Sent sampleSent = load.send(servers.kafka(), sample, null);
        RunSettings reference = RunSettings.write(options.work(), "scale-reference", servers, true, sentFrom,
                options.embedModel(), Map.of("checkpoint.interval", options.checkpointInterval()));
        say("reference run over the sample (%d tenants, %,d records) ...", sample.size(), sampleSent.records());
        try (JobProcess run = JobProcess.run(reference.file(), options.work().resolve("reference.log"), options.jobHeap())) {
            int exit = run.awaitExit(PATIENCE);
            if (exit != 0) {
                throw new IllegalStateException("the reference run exited with " + exit + " (see reference.log)");
            }
        }
        SampleContents expected = SampleContents.read(servers.openSearch(), reference.index(), servers.postgres(), sampleIds, true);

        // everything, through the run that is killed
        RunSettings main = RunSettings.write(options.work(), "scale", servers, false, sentFrom, options.embedModel(),
                Map.of("checkpoint.interval", options.checkpointInterval()));
        TenantCounts counts = new TenantCounts(http, servers.openSearch(), main.index());
        Ingest ingest = new Ingest(counts);
        mark(report, "load");
        JobProcess job = JobProcess.run(main.file(), options.work().resolve("run-1.log"), options.jobHeap());
        try {
            long sendStart = System.nanoTime();
            ScaleLoad.Sent restSent = load.send(servers.kafka(), rest, tenants.get(0).id());
            long sent = sampleSent.records() + restSent.records();
            report.put("produce_seconds", (System.nanoTime() - sendStart) / 1e9);
            say("sent %,d records of %d tenants; loading ...", sent, tenants.size());
            Ingest.Mark first = ingest.await(1, job, PATIENCE);
            ObjectNode heap = report.putObject("job_heap").put("max", options.jobHeap());
            ingest.await(sent * 3 / 10, job, PATIENCE);
            heap.put("live_bytes_at_30_percent", JobHeap.afterFullGc(job.pid()).usedBytes());
            Ingest.Mark beforeKill = ingest.await(sent * 6 / 10, job, PATIENCE);
            heap.put("live_bytes_at_60_percent", JobHeap.afterFullGc(job.pid()).usedBytes());
            heap.set("largest_at_60_percent", RawHttp.JSON.valueToTree(JobHeap.largest(job.pid(), HELD_CLASSES)));
            ObjectNode ingestReport = report.putObject("ingest").put("records_per_second", beforeKill.perSecondSince(first))
                    .put("cpu_micros_per_record", beforeKill.cpuMicrosPerRecordSince(first))
                    .put("servers_cpu_micros_per_record", beforeKill.serversMicrosPerRecordSince(first))
                    .put("measured_records", beforeKill.records() - first.records())
                    .put("standin_micros_per_text", RunSettings.STANDIN.equals(options.embedModel()) ? StandinCost.microsPerText() : 0);
            say("ingest: %.0f records/s, %.0f us CPU per record; kill -9 at %,d searchable ...",
                    beforeKill.perSecondSince(first), beforeKill.cpuMicrosPerRecordSince(first), beforeKill.records());
            Restore.Restarted midLoad = Restore.killAndRestart(job, main, options.work().resolve("run-2.log"),
                    options.jobHeap(), PATIENCE);
            job = midLoad.job();
            restored(report.putObject("restore_mid_load"), midLoad);
            Ingest.Mark all = ingest.await(sent, job, PATIENCE);
            ingestReport.put("all_searchable_seconds_after_restart", job.age().toSeconds());
            say("all %,d searchable", all.records());
            mark(report, "loaded");
            correctness(report.putObject("correctness"), counts, sampleSent, restSent, tenants, all.records() - sent);

            job = checkpointsAndHeap(report, main, job);
            mark(report, "restore_full");
            Restore.Restarted full = Restore.killAndRestart(job, main, options.work().resolve("run-3.log"),
                    options.jobHeap(), PATIENCE);
            job = full.job();
            restored(report.putObject("restore_full"), full);
            // the restored job has no watermark until records come: one more on every split ends the load's event time
            EventTimeEnd.send(servers.kafka(), END);
            SampleContents actual = settled(main, sampleIds, expected);
            List<String> differences = actual.differences(expected);
            report.with("correctness").put("sample_tenants", sampleIds.size())
                    .put("sample_documents", expected.documentCount()).put("sample_rows", expected.rowCount())
                    .put("sample_differences", differences.size()).put("summaries", counts.total(List.of("summary")));
            documents(report.with("correctness"), counts, tenants);
            differences.forEach(d -> say("  differs after the kill: %s", d));
            say("restore: identical for %d sample tenants (%,d documents, %,d rows): %s", sampleIds.size(),
                    expected.documentCount(), expected.rowCount(), differences.isEmpty());

            mark(report, "index");
            report.putPOJO("rejects", Rejects.byReason(servers.kafka()));
            report.set("index", new IndexFootprint(http, servers.openSearch(), main.index()).measure(options.records()));
            LayoutTwins twins = new LayoutTwins(http, servers.openSearch(), main.index());
            say("copies of the index in both layouts of the vector ...");
            twins.build();
            try (ScaleService service = ScaleService.start(options.work(), main, tenants.stream().map(Tenant::id).toList())) {
                new ServiceMeasurements(http, service, servers, main, tenants, restSent, options, progress)
                        .measure(report, job);
            }
            mark(report, "layouts");
            report.set("layouts", twins.footprint());
            twins.delete();
            say("bytes per document, merged: vectors in _source %.0f, derived source %.0f",
                    report.at("/layouts/source_vectors/bytes_per_document").asDouble(),
                    report.at("/layouts/derived_source/bytes_per_document").asDouble());
        } finally {
            job.close();
        }
        mark(report, "end");
        return report;
    }

    /** Small tenants to compare after the kill: the smallest, the median, and the tenants at ranks N/4 and N/8. */
    static List<Tenant> sample(List<Tenant> tenants) {
        int n = tenants.size();
        TreeSet<Integer> ranks = new TreeSet<>(List.of(n - 1, n / 2, n / 4, n / 8));
        ranks.remove(0);
        return ranks.stream().map(tenants::get).toList();
    }

    /**
     * The sample's contents once the job has caught up with them: summaries follow the watermark through the
     * embedding and the writer's batches, a while after the last record is searchable; read again until they hold as
     * many documents as the run without a kill, or ten minutes passed.
     */
    private SampleContents settled(RunSettings main, List<String> sampleIds, SampleContents expected) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
        while (true) {
            SampleContents actual = SampleContents.read(servers.openSearch(), main.index(), servers.postgres(), sampleIds, false);
            if (actual.documentCount() >= expected.documentCount() && actual.rowCount() >= expected.rowCount()
                    || System.nanoTime() > deadline) {
                return actual;
            }
            Thread.sleep(1_000);
        }
    }

    private void correctness(ObjectNode out, TenantCounts counts, ScaleLoad.Sent sample, ScaleLoad.Sent rest,
                             List<Tenant> tenants, long extra) {
        Map<String, Long> searchable = counts.byTenant(TenantCounts.SENT_TYPES, tenants.size());
        long mismatched = 0;
        for (Tenant t : tenants) {
            long expected = sample.byTenant().getOrDefault(t.id(), rest.byTenant().getOrDefault(t.id(), 0L));
            if (searchable.getOrDefault(t.id(), 0L) != expected) {
                mismatched++;
                say("  %s: %d searchable, %d sent", t.id(), searchable.getOrDefault(t.id(), 0L), expected);
            }
        }
        out.put("tenants_with_count_mismatch", mismatched).put("records_beyond_sent", extra);
    }

    /**
     * Every tenant's agent document in chunks, once event time has passed the load (the writer applies a document's
     * chunks in event-time order); waits up to ten minutes for the last ones.
     */
    private void documents(ObjectNode out, TenantCounts counts, List<Tenant> tenants) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
        while (true) {
            Map<String, Long> chunks = counts.byTenant(List.of("invariant", "lore"), tenants.size() + 1);
            long without = tenants.stream().filter(t -> chunks.getOrDefault(t.id(), 0L) == 0).count();
            if (without == 0 || System.nanoTime() > deadline) {
                out.put("tenants_without_document_chunks", without)
                        .put("document_chunks", chunks.values().stream().mapToLong(Long::longValue).sum());
                return;
            }
            Thread.sleep(1_000);
        }
    }

    /** A checkpoint after the load (incremental), a full one, and the job's live heap; returns the job. */
    private JobProcess checkpointsAndHeap(ObjectNode report, RunSettings main, JobProcess job) throws Exception {
        JobCheckpoints checkpoints = new JobCheckpoints(main.restUrl());
        String id = checkpoints.runningJob().orElseThrow();
        JobCheckpoints.Checkpoint incremental = checkpoints.awaitNext(id, checkpoints.completed(id), PATIENCE, job);
        JobCheckpoints.Checkpoint full = checkpoints.full(id, job);
        report.putObject("checkpoint").put("incremental_ms", incremental.durationMillis())
                .put("incremental_written_bytes", incremental.writtenBytes()).put("state_bytes", incremental.stateBytes())
                .put("full_ms", full.durationMillis())
                .put("full_written_bytes", full.writtenBytes() < 0 ? null : full.writtenBytes())
                .put("state_bytes_per_tenant", incremental.stateBytes() / (double) options.tenants())
                .put("state_bytes_per_record", incremental.stateBytes() / (double) options.records());
        JobHeap.Heap heap = JobHeap.afterFullGc(job.pid());
        report.with("job_heap").put("live_bytes_after_full_gc", heap.usedBytes()).put("committed_bytes", heap.committedBytes())
                .set("largest_after_load", RawHttp.JSON.valueToTree(JobHeap.largest(job.pid(), HELD_CLASSES)));
        say("checkpoint: incremental %d ms (%,d B written of %,d B state), full %d ms; job heap live %,d MB",
                incremental.durationMillis(), incremental.writtenBytes(), incremental.stateBytes(), full.durationMillis(),
                heap.usedBytes() >> 20);
        return job;
    }

    private void restored(ObjectNode out, Restore.Restarted r) {
        out.put("tasks_running_ms", r.tasksRunning().toMillis()).put("first_checkpoint_ms", r.firstCheckpoint().toMillis())
                .put("state_bytes", r.stateBytes());
        say("restore after kill -9: tasks running %.1f s after the process start, first checkpoint %.1f s (state %,d B)",
                r.tasksRunning().toMillis() / 1e3, r.firstCheckpoint().toMillis() / 1e3, r.stateBytes());
    }

    /** When a phase began, wall clock (UTC): which measurements shared the machine with what. */
    static void mark(ObjectNode report, String phase) {
        report.with("clock").put(phase, Instant.now().toString());
    }

    private void say(String format, Object... args) {
        progress.printf(java.util.Locale.ROOT, format + "%n", args);
        progress.flush();
    }
}
