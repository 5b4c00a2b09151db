package io.engram.launcher;

import io.engram.service.MemoryService;
import io.engram.service.ServiceMain;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Run the memory service (write, read, list, forget over HTTP) against the Kafka, OpenSearch and"
                + " PostgreSQL of a pipeline properties file, until Ctrl-C.")
final class ServeCommand implements Callable<Integer> {

    @Option(names = "--config", converter = ExistingPath.class, required = true, paramLabel = "FILE",
            description = "The pipeline's properties file (kafka.bootstrap, opensearch.*, postgres.*, service.*);"
                    + " ENGRAM_<KEY> environment variables override it.")
    Path config;

    @Option(names = "--api-keys", converter = ExistingPath.class, paramLabel = "FILE",
            description = "KEY=tenant_id lines (KEY may be sha256:HEX), re-read when it changes; without it, the"
                    + " ENGRAM_API_KEYS environment variable (comma-separated pairs).")
    Path apiKeys;

    @Option(names = "--host", paramLabel = "HOST", description = "Address to listen on (default: service.host, 0.0.0.0).")
    String host;

    @Option(names = "--port", paramLabel = "PORT", description = "Port (default: service.port, 8080).")
    Integer port;

    @Override
    public Integer call() throws Exception {
        MemoryService service = ServiceMain.start(config, apiKeys, host, port, System.getenv());
        ServiceMain.awaitShutdown(service, "api: http://" + (host == null ? "0.0.0.0" : host) + ":");
        return 0;
    }
}
