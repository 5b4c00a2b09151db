package io.engram.launcher;

import io.engram.client.Topics;
import io.engram.jobs.EngramJob;
import io.engram.jobs.EngramPipeline;
import io.engram.jobs.PipelineConfig;
import io.engram.stack.SchemaMigrations;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ./engram run --config FILE}: the pipeline on a local Flink MiniCluster against external Kafka,
 * OpenSearch and PostgreSQL (keys in docs/operations.md). Creates missing topics and applies pending
 * migrations first; runs until stopped (or to the end of the input with {@code kafka.bounded=true}).
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Runs the pipeline locally against the Kafka, OpenSearch and PostgreSQL named in a properties file.")
final class RunCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "properties file (docs/operations.md)")
    Path config;

    @Option(names = "--partitions", defaultValue = "2", description = "partitions of topics it creates (default ${DEFAULT-VALUE})")
    int partitions;

    @Override
    public Integer call() throws Exception {
        Properties props = new Properties();
        try (Reader in = Files.newBufferedReader(config)) {
            props.load(in);
        }
        PipelineConfig pipeline = PipelineConfig.fromProperties(props);
        Topics.create(pipeline.kafkaBootstrap(), partitions);
        try (Connection db = DriverManager.getConnection(pipeline.postgresUrl(), pipeline.postgresUser(),
                pipeline.postgresPassword())) {
            List<Integer> applied = SchemaMigrations.applyPending(db);
            spec.commandLine().getOut().println("migrations applied: " + (applied.isEmpty() ? "none pending" : applied));
        }
        spec.commandLine().getOut().println("running the pipeline against " + pipeline.kafkaBootstrap() + ", "
                + pipeline.openSearchUrl() + ", " + pipeline.postgresUrl());
        spec.commandLine().getOut().flush();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                EngramJob.flinkConfiguration(props, pipeline));
        new EngramPipeline(pipeline).build(env, EngramPipeline.kafkaSource(pipeline), EngramPipeline.sinks(pipeline));
        env.execute("engram");
        return 0;
    }
}
