package io.engram.launcher;

import io.engram.client.EngramProducer;
import io.engram.client.Importer;
import io.engram.client.KafkaClients;
import io.engram.client.PayloadValidator;
import io.engram.jobs.PipelineConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "import", mixinStandardHelpOptions = true,
        description = {"Imports a tenant's export, or Mem0's memories, into a tenant through Kafka.",
                "Reads FILE (- for stdin) a record at a time, rewrites each record's tenant_id to --tenant, validates",
                "it as the pipeline does and publishes the valid ones in order under their keys; derived records",
                "(derived.v1) and resume points (cursor.v1) are skipped, the job derives them again. Prints the",
                "records sent per schema and each rejected line with its number; importing a file again changes",
                "nothing (ids are deterministic). Kafka: --config FILE's kafka.bootstrap and kafka.properties.*, else",
                "those of the ./engram up running here. Exits 1 when a line was rejected."})
final class ImportCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE", description = "The export (JSON lines), or Mem0's memories with --format mem0; - reads stdin.")
    String file;

    @Option(names = "--tenant", required = true, paramLabel = "T", description = "The tenant the records are imported into.")
    String tenant;

    @Option(names = "--format", paramLabel = "F", defaultValue = "engram",
            description = "engram (an Engram export) or mem0 (Mem0 memory objects: JSON lines, a {\"results\": [...]}"
                    + " page or an array; docs/clients.md); default: ${DEFAULT-VALUE}.")
    Importer.Format format;

    @Option(names = "--dry-run", description = "Read and validate every record, send nothing.")
    boolean dryRun;

    @Option(names = "--config", converter = ExistingPath.class, paramLabel = "FILE",
            description = "The pipeline's settings (kafka.bootstrap, kafka.properties.*); default: those of the"
                    + " ./engram up running here.")
    Path config;

    @Override
    public Integer call() throws Exception {
        try {
            Importer.checkTenant(tenant);
        } catch (IllegalArgumentException e) {
            throw new Refusal("--tenant: " + e.getMessage());
        }
        Importer importer = new Importer(PayloadValidator.Limits.DEFAULT);
        Importer.Outcome outcome;
        try (InputStream in = input()) {
            if (dryRun) {
                outcome = importer.run(in, tenant, format, Importer.DRY_RUN);
            } else {
                try (EngramProducer producer = new EngramProducer(kafka(), new Properties(),
                        PayloadValidator.Limits.DEFAULT)) {
                    outcome = importer.run(in, tenant, format, Importer.through(producer));
                }
            }
        }
        print(spec.commandLine().getOut(), outcome);
        return outcome.rejectedTotal() == 0 ? 0 : 1;
    }

    private InputStream input() throws IOException {
        if (file.equals("-")) {
            return System.in;
        }
        try {
            return Files.newInputStream(Path.of(file));
        } catch (NoSuchFileException e) {
            throw new Refusal("FILE: no such file: " + Path.of(file).toAbsolutePath().normalize());
        }
    }

    /** The Kafka of --config, else of the one ./engram up running here. */
    private KafkaClients kafka() throws IOException {
        if (config != null) {
            return PipelineConfig.fromProperties(RunCommand.load(config)).kafka();
        }
        List<RunRegistry.Up> ups = RunRegistry.running(new ArrayList<>());
        if (ups.size() != 1) {
            throw new Refusal(ups.isEmpty() ? StatusCommand.NOTHING_RUNNING
                    : ups.size() + " ./engram up run here: give --config FILE (the settings of the one to import into)");
        }
        return PipelineConfig.fromProperties(RunCommand.load(ups.get(0).settings())).kafka();
    }

    private void print(PrintWriter out, Importer.Outcome outcome) {
        String done = dryRun ? "valid (dry run: nothing sent)" : "sent";
        for (Map.Entry<String, Long> schema : outcome.accepted().entrySet()) {
            out.printf("%-10s %d %s%n", schema.getKey(), schema.getValue(), done);
        }
        out.printf("%-10s %d (derived records and resume points)%n", "skipped", outcome.skipped());
        out.printf("%-10s %d%n", "rejected", outcome.rejectedTotal());
        outcome.rejected().forEach(r -> out.printf("line %d: %s%n", r.line(), r.error()));
        if (outcome.rejectedNotListed() > 0) {
            out.printf("… and %d more rejected lines%n", outcome.rejectedNotListed());
        }
        out.flush();
    }
}
