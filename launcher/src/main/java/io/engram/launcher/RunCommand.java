package io.engram.launcher;

import io.engram.client.Topics;
import io.engram.jobs.PipelineConfig;
import io.engram.jobs.ingest.RouteInputs;
import io.engram.service.LogFormat;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.apache.flink.api.common.JobExecutionResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ./engram run --config FILE}: the pipeline on a local Flink MiniCluster against external Kafka,
 * OpenSearch and PostgreSQL (keys in docs/operations.md). Creates missing topics and applies pending
 * migrations first; runs until stopped (or to the end of the input with {@code kafka.bounded=true}, then says
 * how far it read). Keeps its checkpoints under {@code state.dir} (by default per user and Kafka cluster) and
 * restores the newest, so a killed process resumes where it was — only into the pipeline they were written for.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Runs the pipeline locally against the Kafka, OpenSearch and PostgreSQL named in a properties file.")
final class RunCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--config", converter = ExistingPath.class, required = true, paramLabel = "FILE", description = "properties file (docs/operations.md)")
    Path config;

    @Option(names = "--fresh", description = "start without state: the checkpoints in state.dir are set aside, not restored")
    boolean fresh;

    @Override
    public Integer call() throws Exception {
        Properties props = load(config);
        PipelineConfig pipeline = PipelineConfig.fromProperties(props);
        LogFormat.apply(props.getProperty(LogFormat.KEY));
        PrintWriter out = spec.commandLine().getOut();
        PipelineIdentity now = PipelineIdentity.of(pipeline);
        Path stateDir = pipeline.stateDir().isEmpty() ? EngramHome.state(now.kafkaCluster()) : Path.of(pipeline.stateDir());
        PipelineState state = new PipelineState(stateDir.resolve(EngramHome.safe(pipeline.consumerGroup())));
        out.println("state: " + state.dir() + " (its checkpoints, and what they were written for)");
        LocalPipeline.Prepared prepared = LocalPipeline.prepare(props, pipeline, now, state, new LocalPipeline.Restore(fresh,
                "give this pipeline a state of its own (another state.dir, or another kafka.group), or start it"
                        + " without state with --fresh (the checkpoints there are set aside, not deleted)",
                "flink.execution.state-recovery.path=PATH (a checkpoint or savepoint)"), out::println);
        out.println("running the pipeline against " + pipeline.kafkaBootstrap() + ", "
                + pipeline.openSearch().url() + ", " + pipeline.postgresUrl());
        out.flush();
        JobExecutionResult result = LocalPipeline.run(props, pipeline, "engram", prepared.job());
        if (pipeline.bounded()) {
            out.println("the bounded run ended: " + result.getAccumulatorResult(RouteInputs.RECORDS_READ)
                    + " records read by this run; the input's committed offsets (group " + pipeline.consumerGroup()
                    + "): " + committed(pipeline));
        }
        return 0;
    }

    /** The group's committed offsets by topic: where a bounded run ended. */
    private static String committed(PipelineConfig pipeline) throws Exception {
        Map<String, Map<Integer, Long>> byTopic = new TreeMap<>();
        InputOffsets.committed(pipeline.kafka(), pipeline.consumerGroup()).forEach((tp, offset) -> {
            if (Topics.INPUTS.contains(tp.topic())) {
                byTopic.computeIfAbsent(tp.topic(), t -> new TreeMap<>()).put(tp.partition(), offset);
            }
        });
        List<String> parts = new ArrayList<>();
        byTopic.forEach((topic, offsets) -> parts.add(topic + " " + offsets));
        return parts.isEmpty() ? "none" : String.join(", ", parts);
    }

    static Properties load(Path file) throws IOException {
        Properties props = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            props.load(in);
        }
        return props;
    }
}
