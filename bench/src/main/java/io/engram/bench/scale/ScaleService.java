package io.engram.bench.scale;

import io.engram.service.MemoryService;
import io.engram.service.ServiceMain;
import io.engram.stack.ServiceOptions;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The memory service over the bench's run, in this JVM, as {@code ./engram serve} starts it: one API key per
 * tenant and an operator key; the rate limit raised so that it measures the service, not the limiter.
 */
final class ScaleService implements AutoCloseable {

    static final String OPERATOR_KEY = "scale-operator-key";

    private final MemoryService service;
    private final Map<String, String> keys;

    private ScaleService(MemoryService service, Map<String, String> keys) {
        this.service = service;
        this.keys = keys;
    }

    static ScaleService start(Path dir, RunSettings run, Collection<String> tenants) throws IOException {
        return start(dir, run, tenants, run.index());
    }

    /** The service reading {@code index} instead of the run's own. */
    static ScaleService start(Path dir, RunSettings run, Collection<String> tenants, String index) throws IOException {
        Files.createDirectories(dir);
        Map<String, String> keys = new LinkedHashMap<>();
        StringBuilder file = new StringBuilder(OPERATOR_KEY + "=*\n");
        for (String tenant : tenants) {
            keys.put(tenant, "scale-key-" + tenant);
            file.append("scale-key-").append(tenant).append('=').append(tenant).append('\n');
        }
        Path keyFile = dir.resolve("api-keys.properties");
        Files.writeString(keyFile, file);
        Properties settings = new Properties();
        settings.putAll(run.properties());
        settings.setProperty("opensearch.index", index);
        settings.setProperty("service.rate-limit.per-second", "1000000");
        settings.setProperty("service.rate-limit.burst", "1000000");
        Path config = dir.resolve("service.properties");
        try (Writer out = Files.newBufferedWriter(config)) {
            settings.store(out, "./engram bench scale: the memory service");
        }
        return new ScaleService(ServiceMain.start(config, keyFile, "127.0.0.1", ServiceOptions.freePort(), Map.of()), keys);
    }

    String url() {
        return "http://127.0.0.1:" + service.port();
    }

    String key(String tenant) {
        return keys.get(tenant);
    }

    @Override
    public void close() {
        service.close();
    }
}
