package io.engram.bench.scale;

import io.engram.stack.ServiceOptions;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/**
 * The settings file of one {@code ./engram run} of the bench: a Kafka group, transactional ids, index and state
 * of its own, reading what was sent from {@code sentFrom} on; RocksDB with incremental checkpoints, as a
 * deployment with large state runs; a REST port for the checkpoint statistics.
 */
record RunSettings(Path file, String name, String index, Path checkpoints, String restUrl, Properties properties) {

    /** The stand-in embedder's name ({@code embed.model}). */
    static final String STANDIN = "hashed-standin";

    static RunSettings write(Path dir, String name, Servers servers, boolean bounded, long sentFrom, String model,
                             Map<String, String> more) throws IOException {
        int restPort = ServiceOptions.freePort();
        String index = "engram-memories-" + name;
        Path state = dir.resolve("state-" + name);
        Properties p = new Properties();
        p.setProperty("kafka.bootstrap", servers.kafka());
        p.setProperty("kafka.group", name);
        p.setProperty("kafka.bounded", String.valueOf(bounded));
        p.setProperty("kafka.starting-offsets", "timestamp:" + sentFrom);
        p.setProperty("kafka.transactional-id-prefix", name);
        p.setProperty("opensearch.url", servers.openSearch());
        p.setProperty("opensearch.index", index);
        p.setProperty("postgres.url", servers.postgres());
        p.setProperty("postgres.user", "postgres");
        p.setProperty("checkpoint.interval", "10s");
        p.setProperty("parallelism", "1");
        p.setProperty("embed.model", model);
        p.setProperty("state.dir", state.toString());
        p.setProperty("flink.state.backend.type", "rocksdb");
        p.setProperty("flink.execution.checkpointing.incremental", "true");
        p.setProperty("flink.rest.address", "127.0.0.1");
        p.setProperty("flink.rest.bind-address", "127.0.0.1");
        p.setProperty("flink.rest.port", String.valueOf(restPort));
        more.forEach(p::setProperty);
        Path file = dir.resolve(name + "-" + (bounded ? "bounded" : "unbounded") + ".properties");
        try (Writer out = Files.newBufferedWriter(file)) {
            p.store(out, "./engram bench scale: " + name);
        }
        return new RunSettings(file, name, index, state.resolve(name), "http://127.0.0.1:" + restPort, p);
    }

    /** Where the bench's servers are. */
    record Servers(String kafka, String openSearch, String postgres) {
    }
}
