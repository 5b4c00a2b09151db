package io.engram.bench;

import io.engram.bench.footprint.BenchFootprintCommand;
import io.engram.bench.scale.BenchExportCommand;
import io.engram.bench.scale.BenchScaleCommand;
import picocli.CommandLine.Command;

/** {@code ./engram bench}: every benchmark, each measured side by side with what a user would otherwise run. */
@Command(name = "engram bench", mixinStandardHelpOptions = true,
        description = "Benchmarks, each side by side with the alternative, run apart from the tests.",
        subcommands = {BenchRetrievalCommand.class, BenchCompactionCommand.class, BenchCollapseCommand.class,
                BenchPipelineCommand.class, BenchApiCommand.class, BenchScaleCommand.class, BenchExportCommand.class,
                BenchJmhCommand.class, BenchFootprintCommand.class})
final class BenchCommand {
}
