package io.engram.launcher;

import io.engram.retrieval.Retrieval;
import picocli.CommandLine.Command;

@Command(name = "eval", mixinStandardHelpOptions = true, description = "Retrieval quality evaluations.",
        subcommands = {EvalLocomoCommand.class, EvalUpdatesCommand.class, EvalDeterminismCommand.class,
                EvalRoundTripCommand.class})
final class EvalCommand {
}
