package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.client.KafkaClients;
import io.engram.client.Topics;
import io.engram.jobs.PipelineConfig;
import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.stack.ServiceOptions;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * State belongs to the pipeline it was written for: {@code ./engram run} restores a checkpoint only when the Kafka
 * cluster and its input topics, the OpenSearch index, the PostgreSQL database, the embedding model and the group
 * are those it records, and otherwise refuses before it touches anything, naming what differs and the ways out.
 * The state here is what a run leaves when it dies: what its job was written for (recorded by the run's own code)
 * beside a checkpoint; the refusal comes before anything reads the checkpoint. That a matching state is restored is
 * {@link RunCrashTest}'s and {@link BoundedRunKillTest}'s.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class PipelineIdentityTest {

    @TempDir
    Path dir;

    private Path config(String name, String kafka, EmbeddedOpenSearch openSearch, EmbeddedPostgreSql postgres,
                        String... more) throws Exception {
        Path file = dir.resolve(name + ".properties");
        Files.writeString(file, String.join("\n", java.util.stream.Stream.concat(java.util.stream.Stream.of(
                "kafka.bootstrap=" + kafka, "kafka.group=identity", "kafka.bounded=true",
                "kafka.transactional-id-prefix=identity-" + name, "opensearch.url=" + openSearch.httpUrl(),
                "opensearch.index=engram-memories-identity", "postgres.url=" + postgres.jdbcUrl(),
                "postgres.user=postgres", "checkpoint.interval=1s", "state.dir=" + dir.resolve("state")),
                java.util.stream.Stream.of(more)).toList()));
        return file;
    }

    /** What a run of {@code config} leaves when killed after a checkpoint: its identity beside the checkpoint. */
    private Path stateWrittenBy(Path config) throws Exception {
        PipelineConfig pipeline = PipelineConfig.fromProperties(RunCommand.load(config));
        JobID job = new JobID();
        Path checkpoints = dir.resolve("state").resolve(pipeline.consumerGroup());
        new PipelineState(checkpoints).record(job, PipelineIdentity.of(pipeline));
        Path checkpoint = Files.createDirectories(checkpoints.resolve(job.toHexString()).resolve("chk-7"));
        Files.writeString(checkpoint.resolve("_metadata"), "a checkpoint");
        return checkpoint;
    }

    @Test
    void aStateWrittenAgainstOneKafkaClusterIsRefusedOnAnotherWhichStaysUntouched(EmbeddedKafka kafka,
            EmbeddedOpenSearch openSearch, EmbeddedPostgreSql postgres) throws Exception {
        Topics.create(KafkaClients.at(kafka.bootstrapServers()), 2);
        Path checkpoint = stateWrittenBy(config("cluster-a", kafka.bootstrapServers(), openSearch, postgres));
        try (EmbeddedKafka other = EmbeddedKafka.start(ServiceOptions.ephemeral());
             Admin clusterB = Admin.create(Map.of("bootstrap.servers", other.bootstrapServers()))) {
            Path onB = config("cluster-b", other.bootstrapServers(), openSearch, postgres);

            CliRun refused = CliRun.of("run", "--config", onB.toString());

            assertThat(refused.exit()).isEqualTo(2);
            assertThat(refused.err()).contains("the state in " + checkpoint + " was written for another pipeline",
                    "Kafka cluster id: the state's " + clusterId(kafka) + ", now " + clusterId(other),
                    "input topic " + Topics.TURNS + ": the state's ", ", now absent",
                    "another state.dir, or another kafka.group", "--fresh");
            assertThat(clusterB.listTopics().names().get()).as("no topic made on B").doesNotContainAnyElementsOf(Topics.ALL);
            assertThat(clusterB.listGroups().all().get()).as("no offsets committed on B").isEmpty();

            CliRun fresh = CliRun.of("run", "--fresh", "--config", onB.toString());

            assertThat(fresh.exit()).as(fresh.err()).isZero();
            assertThat(fresh.out()).contains("--fresh: the state in " + checkpoint.getParent().getParent()
                    + " is set aside in ", "no checkpoint in ", "the bounded run ended: 0 records read");
            assertThat(checkpoint).doesNotExist();
        }
    }

    @Test
    void aStateIsRefusedOnceItsInputTopicWasMadeAgain(EmbeddedOpenSearch openSearch, EmbeddedPostgreSql postgres)
            throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(ServiceOptions.ephemeral());
             Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            Topics.create(KafkaClients.at(kafka.bootstrapServers()), 2);
            Path config = config("topics", kafka.bootstrapServers(), openSearch, postgres);
            stateWrittenBy(config);
            admin.deleteTopics(List.of(Topics.TURNS)).all().get();
            Polling.await(Topics.TURNS + " made again", Duration.ofSeconds(60), () -> {
                try {
                    admin.createTopics(List.of(new NewTopic(Topics.TURNS, 2, (short) 1))).all().get();
                    return true;
                } catch (java.util.concurrent.ExecutionException e) { // still being deleted
                    return false;
                }
            });

            CliRun refused = CliRun.of("run", "--config", config.toString());

            assertThat(refused.exit()).isEqualTo(2);
            assertThat(refused.err()).contains("input topic " + Topics.TURNS + ": the state's ")
                    .doesNotContain("Kafka cluster id", Topics.MEMORIES);
        }
    }

    @Test
    void aStateIsRefusedForAnotherIndexOrModelAndTheOtherIndexIsNotMade(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch,
                                                                       EmbeddedPostgreSql postgres) throws Exception {
        CliRun otherIndex = runOnAStateWrittenBefore(kafka, openSearch, postgres, "opensearch.index=engram-memories-identity-other");
        CliRun otherModel = runOnAStateWrittenBefore(kafka, openSearch, postgres, "embed.model=all-minilm-l6-v2");

        assertThat(otherIndex.exit()).isEqualTo(2);
        assertThat(otherIndex.err()).contains("OpenSearch index: the state's engram-memories-identity, now"
                + " engram-memories-identity-other").doesNotContain("embedding model");
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearch.httpUrl(),
                "engram-memories-identity-other", RetryPolicy.DEFAULT)) {
            assertThat(store.clusterAndIndexUuid().get(1)).as("the other index not made").isEmpty();
        }
        assertThat(otherModel.exit()).isEqualTo(2);
        assertThat(otherModel.err()).contains("embedding model: the state's bge-small-en-v1.5-q, now all-minilm-l6-v2")
                .doesNotContain("OpenSearch index");
    }

    @Test
    void aBoundedRunsStateIsNotContinuedByAnUnboundedRun(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch,
                                                         EmbeddedPostgreSql postgres) throws Exception {
        CliRun unbounded = runOnAStateWrittenBefore(kafka, openSearch, postgres, "kafka.bounded=false");

        assertThat(unbounded.exit()).isEqualTo(2);
        assertThat(unbounded.err()).contains("is a bounded run's (kafka.bounded=true)", "Finish it with kafka.bounded=true",
                "--fresh");
    }

    /**
     * {@code ./engram run} with one setting {@code changed} on the state a run with the settings before left (made by
     * the test's first call).
     */
    private CliRun runOnAStateWrittenBefore(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch, EmbeddedPostgreSql postgres,
                                            String changed) throws Exception {
        if (!Files.exists(dir.resolve("state"))) {
            Topics.create(KafkaClients.at(kafka.bootstrapServers()), 2);
            stateWrittenBy(config("before", kafka.bootstrapServers(), openSearch, postgres));
        }
        return CliRun.of("run", "--config", config("changed", kafka.bootstrapServers(), openSearch, postgres, changed)
                .toString());
    }

    private static String clusterId(EmbeddedKafka kafka) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            return admin.describeCluster().clusterId().get();
        }
    }
}
