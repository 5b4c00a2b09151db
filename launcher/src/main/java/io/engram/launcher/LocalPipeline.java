package io.engram.launcher;

import io.engram.jobs.EngramJob;
import io.engram.jobs.EngramPipeline;
import io.engram.jobs.PipelineConfig;
import io.engram.stack.EmbeddedStack;
import java.util.Properties;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The Engram pipeline on a local Flink MiniCluster, the same {@link EngramPipeline} a cluster runs: what
 * {@code run} executes against external servers, and {@code demo} and {@code eval} over the embedded stack.
 */
final class LocalPipeline {

    private LocalPipeline() {
    }

    /** Settings for the embedded stack's servers: two partitions per topic, 2 s checkpoints, parallelism 1. */
    static Properties embedded(EmbeddedStack stack, boolean bounded) {
        Properties p = new Properties();
        p.setProperty("kafka.bootstrap", stack.kafka().orElseThrow().bootstrapServers());
        p.setProperty("kafka.bounded", String.valueOf(bounded));
        p.setProperty("kafka.partitions", "2");
        p.setProperty("opensearch.url", stack.openSearch().orElseThrow().httpUrl());
        p.setProperty("postgres.url", stack.postgres().orElseThrow().jdbcUrl());
        p.setProperty("checkpoint.interval", "2s");
        p.setProperty("parallelism", "1");
        return p;
    }

    /** Runs the job until its input ends ({@code kafka.bounded=true}) or it is cancelled. */
    static void run(Properties properties, PipelineConfig config, String jobName) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                EngramJob.flinkConfiguration(properties, config));
        new EngramPipeline(config).build(env, EngramPipeline.kafkaSource(config), EngramPipeline.sinks(config));
        env.execute(jobName);
    }
}
