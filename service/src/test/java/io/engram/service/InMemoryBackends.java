package io.engram.service;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.client.InvalidPayloadException;
import io.engram.client.Payload;
import io.engram.client.PayloadValidator;
import io.engram.model.collapse.CycleMetrics;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.RecordIds;
import java.io.IOException;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The memory service's backends in memory, for its unit tests. What is published is validated by the pipeline's
 * own validator, kept, and applied at once to {@link #reads} as the pipeline would index it (a memory or a turn
 * upserted under its store id, a forget of one record removing it), so a test can write, read and forget without
 * Kafka. Each backend fails on demand: Kafka not acknowledging, PostgreSQL failing, the rejects topic unreadable.
 */
final class InMemoryBackends implements ForgetLog, CycleSource {

    static final Instant NOW = Instant.parse("2025-06-01T12:00:00Z");

    final InMemoryReads reads = new InMemoryReads();
    final List<Payload> published = new CopyOnWriteArrayList<>();
    final List<String> audit = new CopyOnWriteArrayList<>();
    final Map<String, Status> forgets = new TreeMap<>();
    final Map<String, List<CycleMetrics>> cycles = new TreeMap<>();
    final List<RejectSource.Received> rejects = new CopyOnWriteArrayList<>();
    final InMemoryTenantStore tenants = new InMemoryTenantStore();
    final InMemoryUsageLedger usage = new InMemoryUsageLedger();
    final InMemoryWebhookStore webhooks = new InMemoryWebhookStore();
    final Map<String, Supplier<String>> readiness = new LinkedHashMap<>();
    volatile boolean kafkaDown;
    /** While set, what is published waits to be indexed until {@link #indexHeld()}: records on their way. */
    volatile boolean holdIndex;
    private final List<ObjectNode> held = new CopyOnWriteArrayList<>();
    volatile SQLException postgresFailure;
    volatile IOException rejectsFailure;
    private final PayloadValidator validator = new PayloadValidator(PayloadValidator.Limits.DEFAULT);

    InMemoryBackends() {
        readiness.put("opensearch", () -> ServiceBackends.openSearchReady(reads));
        readiness.put("postgres", () -> postgresFailure == null ? "ok" : "unavailable");
    }

    ServiceBackends backends() {
        return new ServiceBackends(reads, this::publish, this, this, this::tail, tenants, usage, webhooks, readiness,
                Clock.fixed(NOW, ZoneOffset.UTC), () -> { });
    }

    private Future<?> publish(Payload payload) {
        if (validator.validate(payload) instanceof PayloadValidator.Invalid bad) {
            throw new InvalidPayloadException(bad.reason(), bad.message());
        }
        if (kafkaDown) {
            return CompletableFuture.failedFuture(new TimeoutException("no broker answered"));
        }
        published.add(payload);
        if (holdIndex) {
            held.add(payload.json());
        } else {
            index(payload.json());
        }
        return CompletableFuture.completedFuture(null);
    }

    /** Indexes what waited while {@link #holdIndex} was set, as the pipeline would once it catches up. */
    void indexHeld() {
        held.forEach(this::index);
        held.clear();
    }

    /** What the pipeline would make of a payload, for the kinds the tests read back. */
    private void index(ObjectNode p) {
        String tenant = p.get("tenant_id").asText();
        Instant ts = Instant.parse(p.get("ts").asText());
        switch (p.get("schema").asText()) {
            case "memory.v1" -> reads.put(MemoryRecord.of(RecordIds.memory(tenant, p.get("memory_id").asText()), tenant,
                    RecordType.ofLabel(p.get("type").asText()), p.get("text").asText(), ts).tokens(5).build());
            case "turn.v1" -> reads.put(MemoryRecord.of(RecordIds.turn(tenant, p.get("session_id").asText(),
                    p.get("turn_id").asText()), tenant, RecordType.TURN, p.get("text").asText(), ts)
                    .session(p.get("session_id").asText()).tokens(5).build());
            case "forget.v1" -> {
                if (p.get("scope").asText().equals("memory")) {
                    reads.remove(p.get("target").asText());
                }
            }
            default -> {
            }
        }
    }

    /** The forget log's rows as {@code scope target} of a tenant, in forget id order. */
    List<String> forgetsOf(String tenant) {
        List<String> rows = new ArrayList<>();
        forgets.forEach((key, s) -> {
            if (key.startsWith(tenant + " ")) {
                rows.add(s.scope() + " " + s.target());
            }
        });
        return rows;
    }

    private List<RejectSource.Received> tail(int perPartition) throws IOException {
        if (rejectsFailure != null) {
            throw rejectsFailure;
        }
        return List.copyOf(rejects);
    }

    private void postgres() throws SQLException {
        if (postgresFailure != null) {
            throw postgresFailure;
        }
    }

    @Override
    public synchronized void requested(String tenantId, String forgetId, String scope, String target, Instant at)
            throws SQLException {
        postgres();
        forgets.putIfAbsent(tenantId + " " + forgetId, new Status(forgetId, scope, target, at, null, null));
    }

    @Override
    public void audit(String tenantId, String action, String detail) throws SQLException {
        postgres();
        audit.add(tenantId + " " + action + " " + detail);
    }

    @Override
    public synchronized Optional<Status> status(String tenantId, String forgetId) throws SQLException {
        postgres();
        return Optional.ofNullable(forgets.get(tenantId + " " + forgetId));
    }

    @Override
    public synchronized List<CycleMetrics> newest(String tenantId, int limit) throws SQLException {
        postgres();
        List<CycleMetrics> rows = cycles.getOrDefault(tenantId, List.of());
        return rows.subList(Math.max(0, rows.size() - limit), rows.size());
    }

    @Override
    public synchronized List<String> tenants(String after, int limit) throws SQLException {
        postgres();
        return cycles.keySet().stream().filter(t -> t.compareTo(after) > 0).sorted().limit(limit).toList();
    }
}
