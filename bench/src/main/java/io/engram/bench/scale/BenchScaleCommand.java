package io.engram.bench.scale;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.bench.RawHttp;
import io.engram.launcher.ExistingPath;
import io.engram.jobs.PipelineConfig;
import io.engram.stack.EmbeddedStack;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ./engram bench scale}: many tenants of Zipf sizes through the real pipeline on the embedded servers
 * ({@link ScaleRun}), embedding with the stand-in or the default model; the report as tables or one JSON object. Exits 1 when a
 * correctness check failed (a count, a foreign record, a difference after a kill, a forget that left records).
 */
@Command(name = "scale", mixinStandardHelpOptions = true,
        description = "Tenants of Zipf sizes through the real pipeline: ingest, state, checkpoints,"
                + " restore after kill -9, the index, reads against their floor, cross-tenant reads, forget, status.")
public final class BenchScaleCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--tenants", defaultValue = "1000", description = "tenants (default: ${DEFAULT-VALUE})")
    int tenants;

    @Option(names = "--records", defaultValue = "1000000", description = "turns and memories in all (default: ${DEFAULT-VALUE})")
    long records;

    @Option(names = "--largest", description = "records of the largest tenant (default: a tenth of --records)")
    Integer largest;

    @Option(names = "--json", description = "print one JSON object instead of the tables")
    boolean json;

    @Option(names = "--agent-documents", converter = ExistingPath.class, paramLabel = "DIR",
            defaultValue = "${sys:engram.root:-.}/data/agents-md",
            description = "real agent documents, one per tenant in turn (default: the repository's data/agents-md)")
    Path agentDocuments;

    @Option(names = "--job-heap", defaultValue = "1g", description = "-Xmx of the job's process (default: ${DEFAULT-VALUE})")
    String jobHeap;

    @Option(names = "--checkpoint-interval", defaultValue = "10s", description = "the job's checkpoint interval (default: ${DEFAULT-VALUE})")
    String checkpointInterval;

    @Option(names = "--embedder", defaultValue = "standin", paramLabel = "standin|model",
            description = "what the job and the reads embed with: the stand-in (hashed word features, fast) or the"
                    + " default model, bge-small-en-v1.5-q (default: ${DEFAULT-VALUE})")
    String embedder;

    @Option(names = "--model-records", defaultValue = "10000", description = "records loaded with the stand-in and"
            + " with the default model for their ratio; 0 skips it (default: ${DEFAULT-VALUE})")
    int modelRecords;

    @Option(names = "--queries", defaultValue = "200", description = "measured reads per kind, tenant and client"
            + " count; 0 skips the reads (default: ${DEFAULT-VALUE})")
    int queries;

    @Option(names = "--cross-tenant-reads", defaultValue = "1000", description = "randomized cross-tenant reads (default: ${DEFAULT-VALUE})")
    int crossTenantReads;

    @Option(names = "--reads-not-before", paramLabel = "HH:MM", description = "UTC time of day before which the read"
            + " latencies are not measured (the run waits): on a machine shared with another heavy job")
    LocalTime readsNotBefore;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter progress = spec.commandLine().getErr();
        Path work = Files.createTempDirectory("engram-bench-scale");
        String model = embedModel(embedder);
        progress.println("bench scale: working in " + work + " (embed.model " + model + ")");
        ScaleRun.Options options = new ScaleRun.Options(tenants, records, largest != null ? largest : (int) (records / 10),
                work, agentDocuments, jobHeap, checkpointInterval, model, modelRecords, queries, crossTenantReads,
                readsNotBefore == null ? null : LocalDate.now(ZoneOffset.UTC).atTime(readsNotBefore).toInstant(ZoneOffset.UTC));
        ObjectNode report;
        try (EmbeddedStack stack = EmbeddedStack.start(EmbeddedStack.Config.all(Optional.empty()), (s, a) -> { })) {
            RunSettings.Servers servers = new RunSettings.Servers(stack.kafka().orElseThrow().bootstrapServers(),
                    stack.openSearch().orElseThrow().httpUrl(), stack.postgres().orElseThrow().jdbcUrl());
            report = new ScaleRun(options, servers, progress).run();
        }
        if (json) {
            out.println(RawHttp.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(report));
        } else {
            new ScaleTable(out).print(report);
        }
        out.flush();
        return ScaleVerdict.failures(report).isEmpty() ? 0 : 1;
    }

    /** The {@code embed.model} of {@code --embedder}. */
    static String embedModel(String embedder) {
        switch (embedder) {
            case "standin":
                return RunSettings.STANDIN;
            case "model":
                return PipelineConfig.defaults().embeddingModel().id();
            default:
                throw new IllegalArgumentException("--embedder is standin or model, not '" + embedder + "'");
        }
    }
}
