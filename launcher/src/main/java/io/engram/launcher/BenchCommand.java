package io.engram.launcher;

import picocli.CommandLine.Command;

@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Benchmarks that need the embedded servers (JMH benchmarks are in bench/target/benchmarks.jar).",
        subcommands = {BenchRetrievalCommand.class, BenchCompactionCommand.class, BenchCollapseCommand.class,
                BenchPipelineCommand.class})
final class BenchCommand {
}
