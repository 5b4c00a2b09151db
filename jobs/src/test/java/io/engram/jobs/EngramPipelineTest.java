package io.engram.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Properties;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.junit.jupiter.api.Test;

/** How the pipeline is wired, checked on its stream graph without running it. */
class EngramPipelineTest {

    private static final PipelineConfig CONFIG = PipelineConfig.fromProperties(new Properties());

    private static StreamExecutionEnvironment environment(Properties settings) {
        return StreamExecutionEnvironment.getExecutionEnvironment(EngramJob.flinkConfiguration(settings, CONFIG));
    }

    @Test
    void refusesToRunWithOperatorChainingSwitchedOff() {
        Properties settings = new Properties();
        settings.setProperty("flink.pipeline.operator-chaining.enabled", "false");
        StreamExecutionEnvironment env = environment(settings);
        assertThatThrownBy(() -> new EngramPipeline(CONFIG).build(env, EngramPipeline.kafkaSource(CONFIG),
                EngramPipeline.sinks(CONFIG)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("flink.pipeline.operator-chaining.enabled");
    }

    @Test
    void theDetectorIsChainedToTheWriterAndTheEndOfInputToTheSource() {
        StreamExecutionEnvironment env = environment(new Properties());
        new EngramPipeline(CONFIG).build(env, EngramPipeline.kafkaSource(CONFIG), EngramPipeline.sinks(CONFIG));
        StreamGraph graph = env.getStreamGraph();
        var job = graph.getJobGraph();
        assertThat(job.getVertices()).anySatisfy(vertex -> assertThat(vertex.getName())
                .contains("write to OpenSearch").contains("collapse detector"));
        assertThat(job.getVertices()).anySatisfy(vertex -> assertThat(vertex.getName())
                .contains("inputs").contains("end of input"));
    }
}
