package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.client.EngramProducer;
import io.engram.client.Payload;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RecordIds;
import io.engram.store.RetryPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./engram run --config FILE} against running Kafka, OpenSearch and PostgreSQL (here the embedded ones). */
@ExtendWith(EmbeddedServicesExtension.class)
class RunCommandTest {

    @TempDir
    Path dir;

    @Test
    void runsThePipelineAgainstTheConfiguredServices(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch,
                                                    EmbeddedPostgreSql postgres) throws Exception {
        Instant ts = Instant.parse("2026-11-10T08:00:00Z");
        io.engram.client.Topics.create(io.engram.client.KafkaClients.at(kafka.bootstrapServers()), 2);
        long sentFrom = System.currentTimeMillis(); // records carry their send time: skip other tests' input
        try (EngramProducer producer = new EngramProducer(kafka.bootstrapServers())) {
            producer.send(Payload.memory("run-cmd", "m1", "lesson", "Rotate the API keys every quarter", List.of(), 0, "c1", ts));
            producer.send(Payload.memory("run-cmd", "m2", "knowledge", "The billing database runs PostgreSQL 15", List.of(), 0,
                    "c1", ts.plusSeconds(1)));
        }
        Path config = dir.resolve("pipeline.properties");
        Files.writeString(config, String.join("\n",
                "kafka.bootstrap=" + kafka.bootstrapServers(),
                "kafka.group=run-command-test",
                "kafka.bounded=true",
                "kafka.starting-offsets=timestamp:" + sentFrom,
                "kafka.transactional-id-prefix=run-command-test",
                "opensearch.url=" + openSearch.httpUrl(),
                "opensearch.index=engram-memories-run-command",
                "postgres.url=" + postgres.jdbcUrl(),
                "postgres.user=postgres",
                "checkpoint.interval=500ms",
                "flink.restart-strategy.type=none"));

        CliRun run = CliRun.of("run", "--config", config.toString());

        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).contains("migrations applied: none pending").contains(openSearch.httpUrl())
                .contains("the bounded run ended: 2 records read by this run; the input's committed offsets (group"
                        + " run-command-test): ");
        // without state.dir, per user and Kafka cluster, never the working directory
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            assertThat(run.out()).contains("state: " + EngramHome.dir().resolve("state")
                    .resolve(admin.describeCluster().clusterId().get()).resolve("run-command-test").toAbsolutePath());
        }
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearch.httpUrl(), "engram-memories-run-command",
                RetryPolicy.DEFAULT)) {
            store.refresh();
            assertThat(store.find("run-cmd", Map.of(), Set.of(RecordType.LESSON, RecordType.KNOWLEDGE), 10, null, true))
                    .extracting(MemoryRecord::id)
                    .containsExactlyInAnyOrder(RecordIds.memory("run-cmd", "m1"), RecordIds.memory("run-cmd", "m2"));
        }
        try (var db = postgres.connect(); var s = db.createStatement();
             var rows = s.executeQuery("SELECT cycle_id, store_total FROM cycle_metrics WHERE tenant_id = 'run-cmd'")) {
            assertThat(rows.next()).isTrue();
            assertThat(rows.getString(1)).isEqualTo("c1");
            assertThat(rows.getLong(2)).isEqualTo(2);
        }
    }

    @Test
    void aGroupWithCommittedOffsetsButNoStateIsRefusedWithTheWaysOut(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch,
                                                                     EmbeddedPostgreSql postgres) throws Exception {
        io.engram.client.Topics.create(io.engram.client.KafkaClients.at(kafka.bootstrapServers()), 2);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            // what a run leaves behind whose checkpoints are gone: offsets committed at its last checkpoint
            admin.alterConsumerGroupOffsets("lost-state", Map.of(new TopicPartition(io.engram.client.Topics.TURNS, 0),
                    new OffsetAndMetadata(0))).all().get();
        }
        Path config = dir.resolve("lost.properties");
        Files.writeString(config, String.join("\n",
                "kafka.bootstrap=" + kafka.bootstrapServers(),
                "kafka.group=lost-state",
                "opensearch.url=" + openSearch.httpUrl(),
                "opensearch.index=engram-memories-lost-state",
                "postgres.url=" + postgres.jdbcUrl(),
                "postgres.user=postgres",
                "state.dir=" + dir.resolve("empty-state")));

        CliRun run = CliRun.of("run", "--config", config.toString());

        assertThat(run.exit()).isNotZero();
        assertThat(run.out()).contains("no checkpoint in " + dir.resolve("empty-state").resolve("lost-state"));
        assertThat(run.err()).contains("group lost-state has committed offsets but there is no checkpoint",
                "flink.execution.state-recovery.path=PATH", "kafka.starting-offsets=earliest",
                "kafka.starting-offsets=latest");
    }
}
