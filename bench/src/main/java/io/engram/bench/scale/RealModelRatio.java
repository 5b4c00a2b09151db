package io.engram.bench.scale;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.bench.RawHttp;
import io.engram.jobs.PipelineConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The stand-in's distance from the real thing: the same records (ten tenants of Zipf sizes) loaded twice by bounded
 * runs of their own, once embedding with the stand-in and once with the default model; records per second and the
 * job's CPU per record of each, and their ratio; and the index of the model's run, whose vectors are dense as real
 * ones are (the stand-in's are sparse, which flatters bytes on disk and what {@code _source} holds).
 */
final class RealModelRatio {

    private final RunSettings.Servers servers;
    private final Path work;
    private final String heap;
    private final PrintWriter progress;
    private final RawHttp http = new RawHttp();

    RealModelRatio(RunSettings.Servers servers, Path work, String heap, PrintWriter progress) {
        this.servers = servers;
        this.work = work;
        this.heap = heap;
        this.progress = progress;
    }

    ObjectNode measure(ScaleCorpus corpus, int records) throws Exception {
        List<ScaleCorpus.Tenant> tenants = ScaleCorpus.tenants(ZipfSizes.of(10, records, records / 4)).stream()
                .map(t -> new ScaleCorpus.Tenant("model-" + t.id(), t.records(), t.users())).toList();
        long sentFrom = System.currentTimeMillis();
        // after everything the bench sent before, in event time too
        new ScaleLoad(corpus, new ScaleCorpus.EventClock(Instant.parse("2026-11-15T00:00:00Z"))).send(servers.kafka(), tenants, null);
        String model = PipelineConfig.defaults().embeddingModel().id();
        ObjectNode out = RawHttp.JSON.createObjectNode().put("records", records).put("model", model);
        Ingest.Mark[] standin = load("scale-model-standin", RunSettings.STANDIN, sentFrom, records);
        Ingest.Mark[] real = load("scale-model-real", model, sentFrom, records);
        double standinRate = standin[1].perSecondSince(standin[0]);
        double realRate = real[1].perSecondSince(real[0]);
        out.put("standin_records_per_second", standinRate).put("standin_cpu_micros_per_record", standin[1].cpuMicrosPerRecordSince(standin[0]))
                .put("model_records_per_second", realRate).put("model_cpu_micros_per_record", real[1].cpuMicrosPerRecordSince(real[0]))
                .put("standin_over_model", standinRate / realRate);
        // the index with the model's dense vectors: what a record costs OpenSearch when its vector is real
        out.set("index", new IndexFootprint(http, servers.openSearch(), "engram-memories-scale-model-real").measure(records));
        progress.printf(Locale.ROOT, "%,d records: stand-in %.0f/s, %s %.1f/s: the stand-in is %.1fx faster%n", records,
                standinRate, model, realRate, standinRate / realRate);
        progress.flush();
        return out;
    }

    /** A bounded run of its own over what was sent from {@code sentFrom}: its first and last searchable marks. */
    private Ingest.Mark[] load(String name, String model, long sentFrom, int records) throws Exception {
        RunSettings run = RunSettings.write(work, name, servers, true, sentFrom, model, Map.of());
        Ingest ingest = new Ingest(new TenantCounts(http, servers.openSearch(), run.index()));
        try (JobProcess job = JobProcess.run(run.file(), work.resolve(name + ".log"), heap)) {
            Ingest.Mark first = ingest.await(1, job, Duration.ofMinutes(30));
            Ingest.Mark last = ingest.await(records, job, Duration.ofHours(2));
            return new Ingest.Mark[] {first, last};
        }
    }
}
