package io.engram.launcher;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code ./engram}: the local product's command line. */
@Command(name = "engram",
        mixinStandardHelpOptions = true,
        version = "engram 0.1.0",
        description = "Engram: a streaming memory backend for AI agents on Apache Flink.",
        subcommands = {StackCommand.class, PartitionCommand.class, EmbedCommand.class, MentionsCommand.class, CompactCommand.class, RecallCommand.class,
                ServeCommand.class, UpCommand.class, TenantsCommand.class, ImportCommand.class, ExportCommand.class, KeysCommand.class, StatusCommand.class, EvalCommand.class, SqlCommand.class, CollapseCommand.class, DemoCommand.class, RunCommand.class,
                ClusterCommand.class, IndexCommand.class,
                WebhooksCommand.class,
                CommandLine.HelpCommand.class},
        footer = {"", "Benchmarks (the bench module): ./engram bench --help",
                "Every test suite, installing what they need: ./engram test"})
public final class EngramCli {

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs one command line and returns its exit code (used by tests without exiting the JVM). */
    public static int run(String... args) {
        return commandLine().execute(args);
    }

    /** The configured command line, so tests can capture its output. */
    static CommandLine commandLine() {
        return configured(new EngramCli());
    }

    /** A command line that reads and refuses input as every Engram command does (the bench module's too). */
    public static CommandLine configured(Object command) {
        return new CommandLine(command).setCaseInsensitiveEnumValuesAllowed(true)
                .setParameterExceptionHandler(EngramCli::refuse)
                .setExecutionExceptionHandler(EngramCli::refused);
    }

    /** A {@link Refusal} is its message (which names the ways out) and exit status 2; anything else as picocli does. */
    private static int refused(Exception e, CommandLine command, CommandLine.ParseResult parsed) throws Exception {
        if (!(e instanceof Refusal)) {
            throw e;
        }
        command.getErr().println("engram: " + e.getMessage());
        command.getErr().flush();
        return 2;
    }

    /** A wrong command line is one line naming the option and a pointer to the help, never a stack trace. */
    private static int refuse(CommandLine.ParameterException e, String[] args) {
        CommandLine command = e.getCommandLine();
        command.getErr().println("engram: " + e.getMessage());
        command.getErr().println("Try '" + command.getCommandSpec().qualifiedName() + " --help' for more information.");
        command.getErr().flush();
        return command.getCommandSpec().exitCodeOnInvalidInput();
    }
}
