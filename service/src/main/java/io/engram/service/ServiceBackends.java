package io.engram.service;

import io.engram.client.EngramProducer;
import io.engram.client.KafkaClients;
import io.engram.client.Secrets;
import io.engram.client.TopicReader;
import io.engram.client.Topics;
import io.engram.retrieval.Retrieval;
import java.io.IOException;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.KafkaException;

/**
 * Everything the memory service talks to, passed in: the index it reads, where it publishes writes and forgets,
 * the forget log, the cycle rows and the rejects it shows, the tenants and keys made by API, the usage ledger, the
 * webhooks, the checks readiness runs (name → "ok" or why not), its clock, and what closing it releases.
 * {@link #connect} opens the real ones (OpenSearch, Kafka, PostgreSQL) and, unless {@code webhooks.enabled=false},
 * starts the {@link WebhookDispatcher}; the service's unit tests pass in-memory ones.
 */
record ServiceBackends(MemoryReads reads, Publisher publisher, ForgetLog forgets, CycleSource cycles,
                       RejectSource rejects, TenantStore tenants, UsageLedger usage, WebhookStore webhooks,
                       Map<String, Supplier<String>> readiness, Clock clock, AutoCloseable resources) {

    /** Opens the servers {@code config} names; what opened is closed again when a later one fails. */
    static ServiceBackends connect(ServiceConfig config) {
        Retrieval retrieval = Retrieval.open(config.openSearch(), config.index());
        RetrievalReads reads = new RetrievalReads(retrieval);
        EngramProducer producer = null;
        Admin admin = null;
        try {
            producer = new EngramProducer(config.kafka(), new Properties(), config.limits());
            admin = Admin.create(config.kafka().config());
            String password = Secrets.resolve(config.postgresPassword());
            // a connection each: the key directory's polls and the usage flushes never wait behind a request's
            ServiceDatabase database = new ServiceDatabase(new Jdbc(config.postgresUrl(), config.postgresUser(), password));
            TenantStore tenants = new PostgresTenantStore(new Jdbc(config.postgresUrl(), config.postgresUser(), password));
            UsageLedger usage = new PostgresUsageLedger(new Jdbc(config.postgresUrl(), config.postgresUser(), password));
            Supplier<WebhookStore> webhookStores = () -> new PostgresWebhookStore(new Jdbc(config.postgresUrl(),
                    config.postgresUser(), password));
            WebhookStore webhooks = webhookStores.get();
            AutoCloseable dispatcher = config.webhooks().enabled() ? WebhookDispatcher.start(config.kafka(),
                    config.webhooks(), webhookStores, Clock.systemUTC()) : () -> { };
            Map<String, Supplier<String>> readiness = new LinkedHashMap<>();
            readiness.put("opensearch", () -> openSearchReady(reads));
            Admin kafka = admin;
            readiness.put("kafka", () -> kafkaReady(kafka));
            readiness.put("postgres", () -> database.reachable() ? "ok" : "unavailable");
            EngramProducer writes = producer;
            return new ServiceBackends(reads, writes::send, database, database, n -> rejectsTail(config.kafka(), n),
                    tenants, usage, webhooks, readiness, Clock.systemUTC(), () -> {
                        try (reads; writes; database; tenants; usage; webhooks; dispatcher) {
                            kafka.close();
                        }
                    });
        } catch (RuntimeException e) {
            closeAfter(e, reads, producer, admin);
            throw e;
        }
    }

    private static void closeAfter(RuntimeException failure, AutoCloseable... opened) {
        for (AutoCloseable resource : opened) {
            try {
                if (resource != null) {
                    resource.close();
                }
            } catch (Exception closing) {
                failure.addSuppressed(closing);
            }
        }
    }

    /** "ok" when the index answers, else why not. */
    static String openSearchReady(MemoryReads reads) {
        try {
            reads.embeddingModel();
            return "ok";
        } catch (RuntimeException e) {
            return "unavailable: " + e.getMessage();
        }
    }

    private static String kafkaReady(Admin admin) {
        try {
            admin.describeCluster().nodes().get(2, TimeUnit.SECONDS);
            return "ok";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } catch (ExecutionException | TimeoutException e) {
            return "unavailable: " + e;
        }
    }

    private static List<RejectSource.Received> rejectsTail(KafkaClients kafka, int perPartition) throws IOException {
        try {
            return TopicReader.readTail(kafka, Topics.REJECTS, perPartition).stream()
                    .map(r -> new RejectSource.Received(r.timestamp(), r.value())).toList();
        } catch (KafkaException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /** Closes what {@link #resources} holds. */
    void close() {
        try {
            resources.close();
        } catch (Exception e) {
            throw new IllegalStateException("closing the service's connections failed", e);
        }
    }
}
