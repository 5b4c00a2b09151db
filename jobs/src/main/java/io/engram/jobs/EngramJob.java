package io.engram.jobs;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The job's entry point on a Flink cluster: {@code --config FILE} (or the {@code ENGRAM_CONFIG} environment
 * variable) names a properties file (keys in docs/operations.md); keys starting with {@code flink.} are passed to Flink without the prefix (e.g.
 * {@code flink.state.backend.type=rocksdb}).
 */
public final class EngramJob {

    private EngramJob() {
    }

    public static void main(String[] args) throws Exception {
        Properties props = settings(args);
        PipelineConfig config = PipelineConfig.fromProperties(props);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flinkConfiguration(props, config));
        new EngramPipeline(config).build(env, EngramPipeline.kafkaSource(config), EngramPipeline.sinks(config));
        env.execute("engram");
    }

    /**
     * The settings: the file named by the {@code ENGRAM_CONFIG} environment variable (containers), then
     * {@code --config FILE}, then each {@code --key value} over them.
     */
    public static Properties settings(String[] args) throws IOException {
        Properties props = new Properties();
        String fromEnvironment = System.getenv("ENGRAM_CONFIG");
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            try (Reader in = Files.newBufferedReader(Path.of(fromEnvironment))) {
                props.load(in);
            }
        }
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 == args.length) {
                throw new IllegalArgumentException("expected --config FILE or --key value pairs, got: " + String.join(" ", args));
            }
            if (args[i].equals("--config")) {
                try (Reader in = Files.newBufferedReader(Path.of(args[i + 1]))) {
                    props.load(in);
                }
            }
        }
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].equals("--config")) {
                props.setProperty(args[i].substring(2), args[i + 1]);
            }
        }
        return props;
    }

    /** Exactly-once checkpoints, a restart strategy that outlasts an outage, and the {@code flink.*} keys. */
    public static Configuration flinkConfiguration(Properties props, PipelineConfig config) {
        Map<String, String> settings = new HashMap<>();
        settings.put("execution.checkpointing.interval", config.checkpointInterval().toMillis() + " ms");
        settings.put("execution.checkpointing.mode", "EXACTLY_ONCE");
        settings.put("restart-strategy.type", "exponential-delay");
        settings.put("restart-strategy.exponential-delay.initial-backoff", "1 s");
        settings.put("restart-strategy.exponential-delay.max-backoff", "30 s");
        settings.put("restart-strategy.exponential-delay.attempts-before-reset-backoff", "1000");
        if (config.parallelism() > 0) { // else the submission's or the cluster's parallelism
            settings.put("parallelism.default", String.valueOf(config.parallelism()));
        }
        for (String key : props.stringPropertyNames()) {
            if (key.startsWith("flink.")) {
                settings.put(key.substring("flink.".length()), props.getProperty(key));
            }
        }
        return Configuration.fromMap(settings);
    }
}
