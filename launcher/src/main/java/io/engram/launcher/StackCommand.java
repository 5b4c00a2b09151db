package io.engram.launcher;

import io.engram.client.KafkaClients;
import io.engram.client.Topics;
import io.engram.stack.EmbeddedStack;
import io.engram.stack.EmbeddedStack.Service;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "stack", description = "The embedded Kafka, OpenSearch and PostgreSQL.",
        mixinStandardHelpOptions = true, subcommands = StackCommand.Up.class)
final class StackCommand {

    @Command(name = "up", mixinStandardHelpOptions = true,
            description = {"Start the embedded services and stay up until Ctrl-C.",
                    "Prints one line per service when it is ready; stops cleanly on Ctrl-C or SIGTERM."})
    static final class Up implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Option(names = "--services", split = ",", paramLabel = "SERVICE",
                description = "Which services to start (default: all): ${COMPLETION-CANDIDATES}.")
        List<Service> services = List.of(Service.values());

        @Option(names = "--kafka-port", paramLabel = "PORT", description = "Kafka port (default: a free one).")
        int kafkaPort;

        @Option(names = "--opensearch-port", paramLabel = "PORT", description = "OpenSearch HTTP port (default: a free one).")
        int openSearchPort;

        @Option(names = "--postgres-port", paramLabel = "PORT", description = "PostgreSQL port (default: a free one).")
        int postgresPort;

        @Option(names = "--data-dir", paramLabel = "DIR",
                description = "Keep data here across restarts (default: a temporary directory removed at stop).")
        Path dataDir;

        @Option(names = "--partitions", paramLabel = "N", description = "Partitions of each Engram topic (default: ${DEFAULT-VALUE}).")
        int partitions = 2;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            EmbeddedStack.Config config = new EmbeddedStack.Config(EnumSet.copyOf(services),
                    kafkaPort, openSearchPort, postgresPort, Optional.ofNullable(dataDir));
            try (UntilStopped untilStopped = new UntilStopped("engram-stack");
                 EmbeddedStack stack = EmbeddedStack.start(config, (service, address) -> {
                     if (service == Service.KAFKA) {
                         Topics.create(KafkaClients.at(address), partitions);
                     }
                     out.println(service.name().toLowerCase() + ": " + address);
                     out.flush();
                 })) {
                out.println("ready (Ctrl-C to stop)");
                out.flush();
                untilStopped.await();
            }
            return 0;
        }
    }
}
