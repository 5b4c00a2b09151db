package io.engram.launcher;

import io.engram.jobs.EngramSetup;
import io.engram.jobs.PipelineConfig;
import io.engram.service.LogFormat;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ./engram run --config FILE}: the pipeline on a local Flink MiniCluster against external Kafka,
 * OpenSearch and PostgreSQL (keys in docs/operations.md). Creates missing topics and applies pending
 * migrations first; runs until stopped (or to the end of the input with {@code kafka.bounded=true}). Keeps its
 * checkpoints under {@code state.dir} and restores the newest, so a killed process resumes where it was.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Runs the pipeline locally against the Kafka, OpenSearch and PostgreSQL named in a properties file.")
final class RunCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--config", converter = ExistingPath.class, required = true, paramLabel = "FILE", description = "properties file (docs/operations.md)")
    Path config;

    @Override
    public Integer call() throws Exception {
        Properties props = load(config);
        PipelineConfig pipeline = PipelineConfig.fromProperties(props);
        LogFormat.apply(props.getProperty(LogFormat.KEY));
        PrintWriter out = spec.commandLine().getOut();
        EngramSetup.prepare(pipeline, out::println);
        Path checkpoints = Path.of(pipeline.stateDir()).resolve(pipeline.consumerGroup());
        Optional<Path> restored = LocalPipeline.keepCheckpoints(props, checkpoints);
        out.println(restored.map(c -> "restoring the state of checkpoint " + c)
                .orElse("no checkpoint in " + checkpoints.toAbsolutePath() + ": the job starts without state"));
        LocalPipeline.refuseLostState(props, pipeline, "flink.execution.state-recovery.path=PATH (a checkpoint or savepoint)");
        out.println("running the pipeline against " + pipeline.kafkaBootstrap() + ", "
                + pipeline.openSearch().url() + ", " + pipeline.postgresUrl());
        out.flush();
        LocalPipeline.run(props, pipeline, "engram");
        return 0;
    }

    static Properties load(Path file) throws IOException {
        Properties props = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            props.load(in);
        }
        return props;
    }
}
