package io.engram.launcher;

import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Serve POST /v1/context and POST /v1/search over an OpenSearch memory index until Ctrl-C.")
final class ServeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @picocli.CommandLine.Mixin
    MemoryIndexOptions memoryIndex;

    @Option(names = "--api-keys", converter = ExistingPath.class, required = true, paramLabel = "FILE", description = "Properties file of key=tenant_id lines.")
    Path apiKeys;

    @Option(names = "--port", paramLabel = "PORT", description = "Port on 127.0.0.1 (default: ${DEFAULT-VALUE}).")
    int port = 8080;

    @Override
    public Integer call() throws Exception {
        ApiKeys keys = ApiKeys.load(apiKeys);
        Retrieval retrieval = Retrieval.open(memoryIndex.openSearch, memoryIndex.index);
        HttpApi api = new HttpApi(port, keys, retrieval, Clock.systemUTC());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try (retrieval) {
                api.close();
            } finally {
                stopped.countDown();
            }
        }, "engram-api-shutdown"));
        spec.commandLine().getOut().println("api: http://127.0.0.1:" + api.port());
        spec.commandLine().getOut().flush();
        stopped.await();
        return 0;
    }
}
