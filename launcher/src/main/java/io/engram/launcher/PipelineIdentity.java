package io.engram.launcher;

import io.engram.client.Secrets;
import io.engram.client.Topics;
import io.engram.jobs.PipelineConfig;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * What a pipeline's state is written for: the Kafka cluster and its input topics (by id, so a topic deleted and
 * made again differs), the OpenSearch cluster and index (by uuid), the PostgreSQL database (by name and system
 * identifier), the embedding model and the consumer group; and whether the run is bounded. A checkpoint restores
 * only into the pipeline it was written for: offsets, sessions, document versions and cycles mean nothing
 * elsewhere (docs/operations.md, "Recovery"). An empty value is one that could not be read (a PostgreSQL user
 * without the right to read the system identifier) and matches anything.
 */
record PipelineIdentity(String kafkaCluster, Map<String, String> topicIds, String openSearchCluster, String index,
                        String indexUuid, String postgresDatabase, String postgresSystem, String embeddingModel,
                        String group, boolean bounded) {

    /** What an input topic that does not exist is recorded as. */
    static final String ABSENT = "absent";

    /** Reads it from the servers, changing nothing there. */
    static PipelineIdentity of(PipelineConfig config) {
        Map<String, String> topics = new TreeMap<>();
        String kafkaCluster;
        try (Admin admin = Admin.create(config.kafka().config())) {
            kafkaCluster = admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
            admin.describeTopics(Topics.INPUTS).topicNameValues().forEach((topic, description) ->
                    topics.put(topic, topicId(description)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the Kafka cluster's id", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the id of the Kafka cluster at " + config.kafkaBootstrap() + ": "
                    + FailureReason.of(e), e);
        }
        List<String> openSearch;
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(config.openSearch(), config.index(), RetryPolicy.DEFAULT)) {
            openSearch = store.clusterAndIndexUuid();
        } catch (UncheckedIOException e) {
            throw new IllegalStateException("cannot read the uuids of OpenSearch at " + config.openSearch().url() + ": "
                    + FailureReason.of(e), e);
        }
        List<String> postgres = postgres(config);
        String indexUuid = openSearch.get(1).isEmpty() ? ABSENT : openSearch.get(1);
        return new PipelineIdentity(kafkaCluster, topics, openSearch.get(0), config.index(), indexUuid,
                postgres.get(0), postgres.get(1), config.embeddingModel().id(), config.consumerGroup(), config.bounded());
    }

    private static String topicId(KafkaFuture<TopicDescription> description) {
        try {
            return description.get(30, TimeUnit.SECONDS).topicId().toString();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return ABSENT;
            }
            throw new IllegalStateException("cannot describe the input topics: " + FailureReason.of(e), e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("cannot describe the input topics: " + FailureReason.of(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while describing the input topics", e);
        }
    }

    /** The database's name and the cluster's system identifier (empty when this user may not read it). */
    private static List<String> postgres(PipelineConfig config) {
        try (Connection c = DriverManager.getConnection(config.postgresUrl(), config.postgresUser(),
                Secrets.resolve(config.postgresPassword()));
             Statement s = c.createStatement()) {
            String database;
            try (ResultSet rs = s.executeQuery("SELECT current_database()")) {
                rs.next();
                database = rs.getString(1);
            }
            try (ResultSet rs = s.executeQuery("SELECT system_identifier FROM pg_control_system()")) {
                rs.next();
                return List.of(database, rs.getString(1));
            } catch (SQLException e) {
                return List.of(database, "");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the database of PostgreSQL at " + config.postgresUrl() + ": "
                    + FailureReason.of(e), e);
        }
    }

    /** What differs between the state's identity and this one, one line each, as "what: the state's X, now Y". */
    List<String> differencesFrom(PipelineIdentity state) {
        List<String> differences = new ArrayList<>();
        differ(differences, "Kafka cluster id", state.kafkaCluster, kafkaCluster);
        for (String topic : Topics.INPUTS) {
            differ(differences, "input topic " + topic, state.topicIds.getOrDefault(topic, ""), topicIds.getOrDefault(topic, ""));
        }
        differ(differences, "OpenSearch cluster uuid", state.openSearchCluster, openSearchCluster);
        differ(differences, "OpenSearch index", state.index, index);
        if (state.index.equals(index)) {
            differ(differences, "uuid of index " + index, state.indexUuid, indexUuid);
        }
        differ(differences, "PostgreSQL database", state.postgresDatabase, postgresDatabase);
        differ(differences, "PostgreSQL system identifier", state.postgresSystem, postgresSystem);
        differ(differences, "embedding model", state.embeddingModel, embeddingModel);
        differ(differences, "consumer group", state.group, group);
        return differences;
    }

    private static void differ(List<String> differences, String what, String state, String now) {
        if (!state.isEmpty() && !now.isEmpty() && !state.equals(now)) {
            differences.add(what + ": the state's " + state + ", now " + now);
        }
    }

    void write(Path file) throws IOException {
        Properties p = new Properties();
        p.setProperty("kafka.cluster-id", kafkaCluster);
        topicIds.forEach((topic, id) -> p.setProperty("kafka.topic." + topic, id));
        p.setProperty("opensearch.cluster-uuid", openSearchCluster);
        p.setProperty("opensearch.index", index);
        p.setProperty("opensearch.index-uuid", indexUuid);
        p.setProperty("postgres.database", postgresDatabase);
        p.setProperty("postgres.system-identifier", postgresSystem);
        p.setProperty("embed.model", embeddingModel);
        p.setProperty("kafka.group", group);
        p.setProperty("kafka.bounded", String.valueOf(bounded));
        Files.createDirectories(file.getParent());
        Path written = file.resolveSibling(file.getFileName() + ".new");
        try (Writer out = Files.newBufferedWriter(written)) {
            p.store(out, "what the checkpoints beside this file were written for (./engram run, up, cluster submit)");
        }
        Files.move(written, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    static PipelineIdentity read(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            p.load(in);
        }
        Map<String, String> topics = new TreeMap<>();
        p.stringPropertyNames().stream().filter(k -> k.startsWith("kafka.topic."))
                .forEach(k -> topics.put(k.substring("kafka.topic.".length()), p.getProperty(k)));
        return new PipelineIdentity(p.getProperty("kafka.cluster-id", ""), topics, p.getProperty("opensearch.cluster-uuid", ""),
                p.getProperty("opensearch.index", ""), p.getProperty("opensearch.index-uuid", ""),
                p.getProperty("postgres.database", ""), p.getProperty("postgres.system-identifier", ""),
                p.getProperty("embed.model", ""), p.getProperty("kafka.group", ""),
                Boolean.parseBoolean(p.getProperty("kafka.bounded", "false")));
    }
}
