package io.engram.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.client.Importer;
import io.engram.client.Payload;
import io.engram.client.PayloadKind;
import io.engram.model.collapse.CycleMetrics;
import io.engram.model.retrieval.AgentScope;
import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.retrieval.ContextService;
import io.engram.retrieval.HybridRetriever;
import io.engram.retrieval.Stages;
import io.engram.store.ExportLines;
import io.engram.store.MemoryReader;
import io.engram.store.RecordIds;
import java.io.IOException;
import java.io.InputStream;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Semaphore;

/**
 * The memory service's operations, whatever transport asks: the HTTP API ({@link HttpApi}) and the MCP tools
 * ({@link McpEndpoint}) both call these, with the tenant the caller's key gave and the arguments as a JSON
 * object, and get typed results. Every refusal is an {@link ApiError}; the transports map everything else with
 * {@link ApiError#of}.
 */
final class Operations {

    static final int MAX_BUDGET_TOKENS = 200_000;
    static final int MAX_K = 100;
    static final int MAX_PAGE = 100;
    static final int MAX_ID_CHARS = 600;
    static final int MAX_CHAIN = 100;
    /** Rejects looked through per partition of engram.rejects.v1, newest first. */
    static final int REJECTS_SCANNED_PER_PARTITION = 5000;

    /** A forget as requested: its id, what it covers, and the store id or session or user it names. */
    record ForgetReceipt(String forgetId, ForgetScope scope, String target) {
    }

    /** Runs a read within the bound on concurrent reads. */
    interface Read<T> {
        T run() throws ApiError;
    }

    private final ServiceBackends backends;
    private final Writes writes;
    private final Clock clock;
    private final UsageMeter meter;
    private final QuotaGate quotas;
    /**
     * Reads (search, context, listings) embed and rank on the CPU; at most this many run at once, so that under
     * load writes, which mostly wait for Kafka, are not queued behind them on the server's threads. Fewer than
     * 4 × cores left the CPU idle while reads waited on OpenSearch (docs/benchmarks.md, bench api).
     */
    private final Semaphore reads = new Semaphore(4 * Runtime.getRuntime().availableProcessors());

    Operations(ServiceBackends backends, int maxBatch, UsageMeter meter, QuotaGate quotas) {
        this.backends = backends;
        this.clock = backends.clock();
        this.writes = new Writes(backends.publisher(), backends.forgets(), clock, maxBatch);
        this.meter = meter;
        this.quotas = quotas;
    }

    /** Writes within the tenant's quotas; what was accepted is metered. */
    Writes.Written write(String tenant, PayloadKind kind, JsonNode body) throws ApiError, SQLException {
        Writes.Written written = writes.write(tenant, kind, body,
                (records, bytes) -> quotas.admitWrite(tenant, records, bytes));
        if (!written.accepted().isEmpty()) {
            quotas.accepted(tenant, written.accepted());
            meter.wrote(tenant, written.accepted().size(), written.acceptedBytes());
        }
        return written;
    }

    /** Imports an export or a Mem0 listing into the tenant, batch by batch within its quotas (docs/operations.md, "Import"). */
    Importer.Outcome importRecords(String tenant, InputStream in, Importer.Format format, Importer importer)
            throws ApiError, IOException {
        return importer.run(in, tenant, format, new ImportSink(tenant, writes, quotas, meter));
    }

    /** A read's body may name its tenant only as the key's: another is refused and audited, as a write's is. */
    private void refuseOtherTenant(String tenant, JsonNode args, String what) throws ApiError {
        JsonNode named = args.get("tenant_id");
        if (named != null && !named.asText().equals(tenant)) {
            try {
                backends.forgets().audit(tenant, "cross_tenant", what + " named tenant " + named.asText());
            } catch (SQLException e) {
                throw ApiError.of(e, what);
            }
            throw ApiError.forbidden("the API key's tenant is " + tenant + "; a read may not name another");
        }
    }

    /** The time the read's query took to embed, as its {@link Stages} lapped it. */
    private static long embedNanos(Stages stages) {
        return stages.nanos().getOrDefault("embed", 0L);
    }

    AssembledContext context(String tenant, JsonNode args, Stages stages) throws ApiError {
        refuseOtherTenant(tenant, args, "POST /v1/context");
        String session = Arguments.optionalText(args, "session_id");
        String user = Arguments.optionalText(args, "user_id");
        String query = Arguments.requiredText(args, "query");
        int budget = Arguments.boundedInt(args, "budget_tokens", 1, MAX_BUDGET_TOKENS, null);
        ContextService.Request request = new ContextService.Request(tenant, session, user, query, budget,
                Arguments.instant(args, "as_of", null), agent(args), Arguments.bool(args, "all_rules", false));
        AssembledContext context = reading(() -> backends.reads().context(request, clock.instant(), stages));
        meter.read(tenant, true, embedNanos(stages));
        return context;
    }

    List<HybridRetriever.Result> search(String tenant, JsonNode args, Stages stages) throws ApiError {
        refuseOtherTenant(tenant, args, "POST /v1/search");
        String query = Arguments.requiredText(args, "query");
        int k = Arguments.boundedInt(args, "k", 1, MAX_K, 10);
        Set<RecordType> types = askedOrAllButWindows(Arguments.types(args, "types"));
        String agent = agent(args);
        HybridRetriever.Query search = new HybridRetriever.Query(tenant, query, Arguments.optionalText(args, "session_id"),
                Arguments.optionalText(args, "user_id"), types, k, clock.instant(), Arguments.instant(args, "as_of", null),
                agent == null ? null : new AgentScope(agent));
        List<HybridRetriever.Result> results = reading(() -> backends.reads().search(search, stages));
        meter.read(tenant, false, embedNanos(stages));
        return results;
    }

    /** The agent a read is for ({@link AgentScope}), or null; {@value AgentScope#SHARED} names no agent. */
    private static String agent(JsonNode args) throws ApiError {
        String agent = Arguments.optionalText(args, "agent_id");
        if (AgentScope.SHARED.equals(agent)) {
            throw ApiError.invalid("agent_id '" + AgentScope.SHARED + "' marks the documents shared with every agent:"
                    + " read for one agent, or without agent_id");
        }
        if (agent != null && agent.isBlank()) {
            throw ApiError.invalid("agent_id must not be blank");
        }
        return agent;
    }

    /**
     * The types asked for, or when none every type but windows: a window repeats turns the caller already sees
     * (it is a retrieval unit of contexts), so searches and lists show it only when asked by type.
     */
    private static Set<RecordType> askedOrAllButWindows(Set<RecordType> asked) {
        return asked.isEmpty() ? EnumSet.complementOf(EnumSet.of(RecordType.WINDOW)) : asked;
    }

    /** A page of the tenant's records, filtered by the query string's session_id, user_id and type. */
    MemoryReads.Page list(String tenant, Map<String, String> query) throws ApiError {
        Map<String, Object> terms = new LinkedHashMap<>();
        for (String field : List.of("session_id", "user_id")) {
            if (query.containsKey(field)) {
                terms.put(field, query.get(field));
            }
        }
        Set<RecordType> types = askedOrAllButWindows(query.containsKey("type")
                ? EnumSet.of(Arguments.recordType(query.get("type"))) : EnumSet.noneOf(RecordType.class));
        int limit = Arguments.limit(query, 20, MAX_PAGE);
        meter.read(tenant, false, 0);
        return reading(() -> {
            try {
                return backends.reads().list(tenant, terms, types, limit, query.get("cursor"));
            } catch (IllegalArgumentException e) {
                throw ApiError.invalid(e.getMessage());
            }
        });
    }

    /** A tenant's export: its first page, read before anything is sent so that bad arguments are refused, and the rest. */
    record Export(MemoryReader.Page first, ExportLines.Pages next) {
    }

    /**
     * Every record of the tenant, or of a user, a session or an agent ({@code user_id}, {@code session_id},
     * {@code agent_id}), of some {@code types} or all, oldest first, from a {@code cursor} of an earlier export or the
     * start: each page read within the bound on concurrent reads, one page held at a time.
     */
    Export export(String tenant, Map<String, String> query) throws ApiError {
        Map<String, Object> terms = new LinkedHashMap<>();
        for (String field : List.of("user_id", "session_id", "agent_id")) {
            if (query.containsKey(field)) {
                terms.put(field, query.get(field));
            }
        }
        Set<RecordType> types = Arguments.recordTypes(query.get("types"));
        meter.read(tenant, false, 0);
        ExportLines.Pages pages = cursor -> {
            try {
                MemoryReads.Page page = reading(() -> backends.reads().list(tenant, terms, types,
                        MemoryReader.Order.OLDEST_FIRST, ExportLines.PAGE_SIZE, cursor));
                return new MemoryReader.Page(page.records(), page.nextCursor());
            } catch (ApiError e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        };
        try {
            return new Export(pages.after(query.get("cursor")), pages);
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid(e.getMessage());
        }
    }

    /** The tenant's entities, of a user's or a session's records, or of those naming one entity ({@code name}). */
    List<MemoryReader.Entity> entities(String tenant, Map<String, String> query) throws ApiError {
        Map<String, Object> terms = new LinkedHashMap<>();
        for (String field : List.of("session_id", "user_id")) {
            if (query.containsKey(field)) {
                terms.put(field, query.get(field));
            }
        }
        if (query.containsKey("name")) {
            terms.put(MemoryReader.ENTITIES, query.get("name").strip().toLowerCase(Locale.ROOT));
        }
        int limit = Arguments.limit(query, 20, MAX_PAGE);
        meter.read(tenant, false, 0);
        return reading(() -> backends.reads().entities(tenant, terms, limit));
    }

    /**
     * The record an id names within the tenant: a store id as the API returns it ({@code acme/m-1}), or the
     * caller's own id, which the store qualifies with the tenant ({@code m-1}, a memory's {@code memory_id};
     * {@code s-1/t-0}, a turn's {@code session_id/turn_id}). Looked up by id, both forms at once; the store id
     * wins when both name a record.
     */
    MemoryRecord get(String tenant, String id) throws ApiError {
        meter.read(tenant, false, 0);
        return find(tenant, id);
    }

    private MemoryRecord find(String tenant, String id) throws ApiError {
        List<String> candidates = List.of(id, RecordIds.memory(tenant, id));
        List<MemoryRecord> found = backends.reads().get(tenant, candidates);
        return candidates.stream().flatMap(c -> found.stream().filter(r -> r.id().equals(c))).findFirst()
                .orElseThrow(() -> ApiError.notFound("no memory " + id));
    }

    /**
     * The store ids of a memory's supersession chain, oldest first: what it replaced (by {@code superseded_by}, the
     * newest of several), itself, and what replaced it, at most {@value #MAX_CHAIN} ids.
     */
    List<String> chain(String tenant, MemoryRecord r) {
        LinkedList<String> chain = new LinkedList<>(List.of(r.id()));
        Set<String> seen = new HashSet<>(chain);
        for (String by = r.supersededBy(); by != null && chain.size() < MAX_CHAIN && seen.add(by); ) {
            chain.addLast(by); // a forgotten superseder is named, and ends the chain
            by = backends.reads().get(tenant, List.of(by)).stream().findFirst().map(MemoryRecord::supersededBy).orElse(null);
        }
        for (String id = r.id(); chain.size() < MAX_CHAIN; ) {
            List<MemoryRecord> replaced = backends.reads().list(tenant, Map.of("superseded_by", id),
                    EnumSet.noneOf(RecordType.class), 1, null).records();
            if (replaced.isEmpty() || !seen.add(replaced.get(0).id())) {
                break;
            }
            id = replaced.get(0).id();
            chain.addFirst(id);
        }
        return chain;
    }

    /**
     * Records the request, then sends the forget through Kafka (so it is ordered after the writes before it and
     * applied exactly once by the pipeline); {@link #forgetStatus} says when the store no longer has it. A
     * memory's id is resolved as {@link #get} resolves it; the forget names its store id.
     */
    ForgetReceipt forget(String tenant, ForgetScope scope, String id) throws ApiError, SQLException {
        if (id.isBlank() || id.length() > MAX_ID_CHARS) {
            throw ApiError.invalid("the id must be 1 to " + MAX_ID_CHARS + " characters");
        }
        if (scope == ForgetScope.TENANT) {
            throw ApiError.invalid("a tenant is forgotten by deleting it (DELETE /v1/admin/tenants/{tenant_id})");
        }
        String target = scope == ForgetScope.MEMORY ? find(tenant, id).id() : id;
        ForgetReceipt receipt = requestForget(tenant, "fgt-" + UUID.randomUUID(), scope, target, clock.instant());
        meter.forgot(tenant);
        return receipt;
    }

    /** Forgets everything of a deleted tenant, as {@code forgetId} (the same again when a deletion is retried). */
    ForgetReceipt forgetTenant(String tenant, String forgetId, Instant at) throws ApiError, SQLException {
        return requestForget(tenant, forgetId, ForgetScope.TENANT, tenant, at);
    }

    private ForgetReceipt requestForget(String tenant, String forgetId, ForgetScope scope, String target, Instant at)
            throws ApiError, SQLException {
        backends.forgets().requested(tenant, forgetId, scope.label(), target, at);
        backends.forgets().audit(tenant, "forget", scope.label() + " " + target + " as " + forgetId);
        writes.publish(Payload.forget(tenant, forgetId, scope.label(), target, at));
        return new ForgetReceipt(forgetId, scope, target);
    }

    ForgetLog.Status forgetStatus(String tenant, String forgetId) throws ApiError, SQLException {
        return backends.forgets().status(tenant, forgetId).orElseThrow(() -> ApiError.notFound("no forget " + forgetId));
    }

    /** What the context path's rule cache holds now. */
    ContextService.CachedRules cachedRules() {
        return backends.reads().cachedRules();
    }

    /** The tenant's newest {@code limit} cycle rows, oldest first. */
    List<CycleMetrics> health(String tenant, int limit) throws SQLException {
        return backends.cycles().newest(tenant, limit);
    }

    /** A page of tenants, and the last of them when more follow (the next page's {@code after}), else null. */
    record TenantPage(List<String> tenants, String nextAfter) {
    }

    /**
     * The tenants a key reads after {@code after} ("" from the first), up to {@code limit}: its own, or for an
     * operator key the tenants with cycle rows.
     */
    TenantPage tenants(ApiKeys.Caller caller, String after, int limit) throws SQLException {
        if (!caller.operator()) {
            return new TenantPage(caller.tenantId().compareTo(after) > 0 ? List.of(caller.tenantId()) : List.of(), null);
        }
        List<String> page = backends.cycles().tenants(after, limit + 1);
        return page.size() > limit ? new TenantPage(page.subList(0, limit), page.get(limit - 1))
                : new TenantPage(page, null);
    }

    /**
     * The tenant's newest rejects, up to {@code perReason} of each reason, newest first, among the last
     * {@value #REJECTS_SCANNED_PER_PARTITION} records of each partition of the rejects topic; each with the time
     * it was rejected.
     */
    List<ObjectNode> rejects(String tenant, int perReason) throws ApiError {
        List<RejectSource.Received> tail;
        try {
            tail = new ArrayList<>(backends.rejects().tail(REJECTS_SCANNED_PER_PARTITION));
        } catch (IOException e) {
            throw new ApiError(503, "unavailable", "the rejects topic did not read: " + e.getMessage());
        }
        tail.sort(Comparator.comparingLong(RejectSource.Received::timestampMillis).reversed());
        Map<String, Integer> taken = new LinkedHashMap<>();
        List<ObjectNode> rejects = new ArrayList<>();
        for (RejectSource.Received r : tail) {
            JsonNode reject;
            try {
                reject = ResponsesJson.JSON.readTree(r.value());
            } catch (IOException e) {
                continue; // not a reject.v1 record: nothing of this tenant's
            }
            String reason = reject.path("reason_code").asText();
            if (reject instanceof ObjectNode o && tenant.equals(o.path("tenant_id").asText(null))
                    && taken.merge(reason, 1, Integer::sum) <= perReason) {
                rejects.add(o.put("rejected_at", Instant.ofEpochMilli(r.timestampMillis()).toString()));
            }
        }
        return rejects;
    }

    /** Each readiness check's answer, by name: "ok" or why not. */
    Map<String, String> readiness() {
        Map<String, String> checks = new LinkedHashMap<>();
        backends.readiness().forEach((name, check) -> checks.put(name, check.get()));
        return checks;
    }

    List<MemoryReads.Document> documents(String tenant) throws ApiError {
        return reading(() -> backends.reads().documents(tenant));
    }

    List<MemoryRecord> document(String tenant, String agentId, String path, int max) throws ApiError {
        return reading(() -> backends.reads().document(tenant, agentId, path, max));
    }

    /** Runs a read within the bound on concurrent reads. */
    <T> T reading(Read<T> read) throws ApiError {
        try {
            reads.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiError(503, "unavailable", "the service is stopping");
        }
        try {
            return read.run();
        } finally {
            reads.release();
        }
    }
}
