package io.engram.service;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * The memory service as a process of its own (the container image's entry point; {@code ./engram serve} runs the
 * same): {@code --config FILE [--api-keys FILE] [--host H] [--port P]}. Without {@code --api-keys} the keys come
 * from {@code ENGRAM_API_KEYS}. Stops cleanly on SIGTERM.
 */
public final class ServiceMain {

    private ServiceMain() {
    }

    /** Starts the service from a properties file and a key file (or the environment's keys). */
    public static MemoryService start(Path config, Path apiKeys, String host, Integer port, Map<String, String> env)
            throws java.io.IOException {
        ServiceConfig settings = ServiceConfig.load(config, env);
        LogFormat.apply(settings.logFormat());
        settings = settings.withListen(host == null ? settings.host() : host, port == null ? settings.port() : port);
        ApiKeys keys;
        if (apiKeys != null) {
            keys = ApiKeys.watching(apiKeys);
        } else if (env.get("ENGRAM_API_KEYS") != null) {
            keys = ApiKeys.of(env.get("ENGRAM_API_KEYS"));
        } else {
            throw new IllegalArgumentException("give --api-keys FILE or set ENGRAM_API_KEYS");
        }
        return MemoryService.start(settings, keys);
    }

    public static void main(String[] args) throws Exception {
        Path config = null;
        Path apiKeys = null;
        String host = null;
        Integer port = null;
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(args[i] + " needs a value");
            }
            switch (args[i]) {
                case "--config" -> config = Path.of(args[i + 1]);
                case "--api-keys" -> apiKeys = Path.of(args[i + 1]);
                case "--host" -> host = args[i + 1];
                case "--port" -> port = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (use --config FILE [--api-keys FILE] [--host H] [--port P])");
            }
        }
        if (config == null) {
            throw new IllegalArgumentException("--config FILE is required");
        }
        awaitShutdown(start(config, apiKeys, host, port, System.getenv()), "api: port ");
    }

    /** Prints where the service listens and blocks until the JVM is asked to stop, then closes it. */
    public static void awaitShutdown(MemoryService service, String announce) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                service.close();
            } finally {
                stopped.countDown();
            }
        }, "engram-service-shutdown"));
        System.out.println(announce + service.port());
        System.out.flush();
        stopped.await();
    }
}
