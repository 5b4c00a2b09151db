package io.engram.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.bench.RawHttp;
import io.engram.model.embed.Embedder;
import io.engram.model.embed.EmbeddingModel;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The measurements made through the memory service once everything is loaded, in an order that leaves each its
 * input: reads against their floor (smallest, median and largest tenant, 1 and 8 clients), cross-tenant reads, the
 * operator's views, a cycle close of the largest tenant, and last the forget of one of its users.
 */
record ServiceMeasurements(RawHttp http, ScaleService service, RunSettings.Servers servers, RunSettings run,
                           List<ScaleCorpus.Tenant> tenants, ScaleLoad.Sent sent, ScaleRun.Options options,
                           PrintWriter progress) {

    /** Rounds of the side-by-side reads of the two layouts, alternating, so that both meet the machine alike. */
    private static final int LAYOUT_ROUNDS = 2;

    void measure(ObjectNode report, JobProcess job) throws Exception {
        ScaleCorpus.Tenant largest = tenants.get(0);
        if (options.readsNotBefore() != null && Instant.now().isBefore(options.readsNotBefore())) {
            say("waiting until %s to measure reads (--reads-not-before)", options.readsNotBefore());
            Thread.sleep(Duration.between(Instant.now(), options.readsNotBefore()).toMillis());
        }
        ScaleRun.mark(report, "reads");
        if (options.queries() > 0) {
            try (Embedder embedder = EmbeddingModel.ofId(options.embedModel()).embedder()) {
                ReadLatency reads = new ReadLatency(http, service, servers.openSearch(), run.index(), embedder);
                ArrayNode latency = report.putArray("reads");
                for (ScaleCorpus.Tenant t : measured()) {
                    for (int clients : List.of(1, 8)) {
                        said(latency.add(reads.measure(t, clients, options.queries())).get(latency.size() - 1), "");
                    }
                }
                ScaleRun.mark(report, "layout_reads");
                layoutReads(report.putArray("layout_reads"), embedder);
            }
        }
        ScaleRun.mark(report, "cross_tenant");
        ObjectNode cross = new CrossTenantReads(http, service, servers.openSearch() + "/" + run.index())
                .measure(tenants, options.crossTenantReads());
        report.set("cross_tenant", cross);
        say("cross-tenant reads: %d, %d records returned, %d foreign", cross.get("reads").asInt(),
                cross.get("records_returned").asLong(), cross.get("foreign_records").asLong());
        ScaleRun.mark(report, "operator");
        report.set("operator", new OperatorViews(http, service).measure(run, options.work(), options.jobHeap(), largest.id()));
        say("operator views: %s", report.get("operator"));
        ScaleRun.mark(report, "cycle_close");
        report.set("cycle_close", CycleClose.measure(servers, largest, "bench-close", ScaleRun.END.plusSeconds(60)));
        say("cycle close of %s: %s", largest.id(), report.get("cycle_close"));
        ScaleRun.mark(report, "forget");
        String user = largest.user(0);
        report.set("forget", new ForgetUser(http, service, new TenantCounts(http, servers.openSearch(), run.index()))
                .measure(largest, user, sent.byUserOfWatched().getOrDefault(user, 0L),
                        sent.byTenant().get(largest.id()) + CycleClose.MEMORIES, tenants.size()));
        say("forget of %s/%s: %s", largest.id(), user, report.get("forget"));
        if (!job.alive()) {
            throw new IllegalStateException("the job process died during the measurements");
        }
    }

    /** The smallest, the median and the largest tenant. */
    private List<ScaleCorpus.Tenant> measured() {
        return List.of(tenants.get(tenants.size() - 1), tenants.get(tenants.size() / 2), tenants.get(0));
    }

    /**
     * One client's reads of each measured tenant on the two {@link LayoutTwins}, through a service of each, the
     * layouts alternating round by round.
     */
    private void layoutReads(ArrayNode out, Embedder embedder) throws Exception {
        List<String> ids = tenants.stream().map(ScaleCorpus.Tenant::id).toList();
        try (ScaleService sourceVectors = ScaleService.start(options.work().resolve("service-source-vectors"), run, ids,
                LayoutTwins.SOURCE_VECTORS);
             ScaleService derivedSource = ScaleService.start(options.work().resolve("service-derived-source"), run, ids,
                     LayoutTwins.DERIVED_SOURCE)) {
            ReadLatency onSourceVectors = new ReadLatency(http, sourceVectors, servers.openSearch(), LayoutTwins.SOURCE_VECTORS, embedder);
            ReadLatency onDerivedSource = new ReadLatency(http, derivedSource, servers.openSearch(), LayoutTwins.DERIVED_SOURCE, embedder);
            for (ScaleCorpus.Tenant t : measured()) {
                for (int round = 0; round < LAYOUT_ROUNDS; round++) {
                    said(out.addObject().put("layout", LayoutTwins.SOURCE_VECTORS).put("round", round)
                            .setAll(onSourceVectors.measure(t, 1, options.queries())), LayoutTwins.SOURCE_VECTORS);
                    said(out.addObject().put("layout", LayoutTwins.DERIVED_SOURCE).put("round", round)
                            .setAll(onDerivedSource.measure(t, 1, options.queries())), LayoutTwins.DERIVED_SOURCE);
                }
            }
        }
    }

    private void said(JsonNode r, String on) {
        say("reads of %s (%,d records), %d client(s)%s: context p95 %.1f ms, floor k-NN %.1f + BM25 %.1f ms: %.2fx",
                r.get("tenant").asText(), r.get("records").asInt(), r.get("clients").asInt(), on.isEmpty() ? "" : " on " + on,
                r.at("/context/p95").asDouble(), r.at("/knn/p95").asDouble(), r.at("/bm25/p95").asDouble(),
                r.get("context_p95_over_floor").asDouble());
    }

    private void say(String format, Object... args) {
        progress.printf(Locale.ROOT, format + "%n", args);
        progress.flush();
    }
}
