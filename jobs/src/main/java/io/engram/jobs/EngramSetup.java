package io.engram.jobs;

import io.engram.client.Secrets;
import io.engram.client.Topics;
import io.engram.model.embed.EmbeddingModel;
import io.engram.schema.SchemaMigrations;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import java.util.function.Consumer;

/**
 * What the job needs before it first starts, idempotent: the five topics (missing ones created with
 * {@code kafka.partitions} partitions each), the OpenSearch index template and index, and the pending PostgreSQL
 * migrations. The one-shot setup of the compose file and the Kubernetes manifests runs this class from the job
 * jar ({@code java -cp engram-jobs.jar io.engram.jobs.EngramSetup --config FILE}); {@code ./engram run} and
 * {@code ./engram cluster submit} call {@link #prepare} first.
 */
public final class EngramSetup {

    private EngramSetup() {
    }

    public static void main(String[] args) throws Exception {
        prepare(PipelineConfig.fromProperties(EngramJob.settings(args)), System.out::println);
    }

    public static void prepare(PipelineConfig config, Consumer<String> progress) throws Exception {
        Topics.create(config.kafka(), config.topicPartitions());
        progress.accept("topics: " + Topics.ALL);
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(config.openSearch(), config.index(), RetryPolicy.DEFAULT)) {
            store.ensureIndex(config.embeddingModel().id(), EmbeddingModel.DIMENSION, config.vectorEncoding());
        }
        progress.accept("index: " + config.index() + " (vectors of " + config.embeddingModel().id() + ", encoding "
                + config.vectorEncoding().id() + ")");
        try (Connection db = DriverManager.getConnection(config.postgresUrl(), config.postgresUser(),
                Secrets.resolve(config.postgresPassword()))) {
            List<Integer> applied = SchemaMigrations.applyPending(db);
            progress.accept("migrations applied: " + (applied.isEmpty() ? "none pending" : applied));
        }
    }
}
