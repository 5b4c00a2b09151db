package io.engram.service;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.engram.client.EngramProducer;
import io.engram.client.InvalidPayloadException;
import io.engram.client.Payload;
import io.engram.client.PayloadKind;
import io.engram.client.Secrets;
import io.engram.client.TopicReader;
import io.engram.client.Topics;
import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.retrieval.ContextService;
import io.engram.retrieval.HybridRetriever;
import io.engram.retrieval.Retrieval;
import io.engram.retrieval.Stages;
import io.engram.store.MemoryStore;
import io.engram.store.RecordIds;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The memory service (docs/operations.md, "The memory service"; the API in docs/api.md): a tenant's writes go
 * to Kafka after the pipeline's own validation, reads and context assembly come from OpenSearch, forgets go
 * through Kafka like every write and are tracked in PostgreSQL. The tenant comes only from the API key
 * ({@code Authorization: Bearer KEY} or {@code X-Api-Key}); a body naming another tenant is refused and audited.
 * Every error is JSON {@code {"error": {"code", "message"}}}. Stateless: replicas share nothing but the stores.
 * {@code POST /mcp} offers the same operations as MCP tools ({@link McpEndpoint}, docs/clients.md).
 */
public final class MemoryService implements AutoCloseable {

    /** Bodies of every endpoint but {@code /v1/documents}, whose bound follows {@code limits.document-bytes}. */
    public static final int MAX_BODY_BYTES = 1024 * 1024;
    static final int MAX_QUERY_CHARS = 4096;
    static final int MAX_BUDGET_TOKENS = 200_000;
    static final int MAX_K = 100;
    static final int MAX_PAGE = 100;
    private static final long KAFKA_ACK_SECONDS = 15;
    private static final Logger LOG = LoggerFactory.getLogger(MemoryService.class);

    static {
        // The JDK server writes a response's headers and body separately; with Nagle's algorithm on, the body
        // waits for the client's delayed ACK of the headers (~40 ms on Linux). Read once, when the first server
        // starts; bench api measured the difference (docs/benchmarks.md).
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    /** An endpoint: its method and path template ({@code {name}} is one URL-encoded path segment). */
    public record Route(String method, String template) {
        Optional<String> match(String method, String rawPath) {
            if (!this.method.equals(method)) {
                return Optional.empty();
            }
            int brace = template.indexOf('{');
            if (brace < 0) {
                return template.equals(rawPath) ? Optional.of("") : Optional.empty();
            }
            String prefix = template.substring(0, brace);
            if (!rawPath.startsWith(prefix) || rawPath.length() == prefix.length()
                    || rawPath.indexOf('/', prefix.length()) >= 0) {
                return Optional.empty();
            }
            return Optional.of(URLDecoder.decode(rawPath.substring(prefix.length()), StandardCharsets.UTF_8));
        }
    }

    /** Every endpoint, as /openapi.json lists them (a test holds the two to each other). */
    public static final List<Route> ROUTES = List.of(
            new Route("GET", "/healthz"), new Route("GET", "/readyz"), new Route("GET", "/metrics"),
            new Route("GET", "/openapi.json"),
            new Route("POST", "/v1/turns"), new Route("POST", "/v1/memories"), new Route("POST", "/v1/documents"),
            new Route("POST", "/v1/context"), new Route("POST", "/v1/search"),
            new Route("GET", "/v1/memories"), new Route("GET", "/v1/memories/{id}"),
            new Route("DELETE", "/v1/memories/{id}"), new Route("DELETE", "/v1/sessions/{session_id}"),
            new Route("DELETE", "/v1/users/{user_id}"), new Route("GET", "/v1/forgets/{forget_id}"),
            new Route("GET", "/v1/health"), new Route("GET", "/v1/rejects"), new Route("GET", "/v1/tenants"),
            new Route("POST", "/mcp"), new Route("GET", "/console/"), new Route("GET", "/console/{file}"));

    /** What an operator key may do: read, for the tenant it names with {@value #TENANT_HEADER}. */
    private static final Set<String> OPERATOR_ROUTES = Set.of("GET /v1/memories", "GET /v1/memories/{id}",
            "POST /v1/context", "POST /v1/search", "GET /v1/forgets/{forget_id}", "GET /v1/health", "GET /v1/rejects",
            "GET /v1/tenants");
    static final String TENANT_HEADER = "X-Engram-Tenant";
    /** Rejects the console looks through per partition of engram.rejects.v1, newest first. */
    static final int REJECTS_SCANNED_PER_PARTITION = 5000;

    private final ServiceConfig config;
    private final ApiKeys keys;
    private final Retrieval retrieval;
    private final EngramProducer producer;
    private final Admin kafkaAdmin;
    private final ForgetLog forgetLog;
    private final CycleHistory cycleHistory;
    private final RateLimiter rateLimiter;
    private final ServiceMetrics metrics = new ServiceMetrics();
    private final Clock clock;
    private final HttpServer server;
    private final ExecutorService workers;
    private final McpEndpoint mcp;
    /**
     * Reads (search, context, listings) embed and rank on the CPU; at most this many run at once, so that under
     * load writes, which mostly wait for Kafka, are not queued behind them on the server's threads. Fewer than
     * 4 × cores left the CPU idle while reads waited on OpenSearch (docs/benchmarks.md, bench api).
     */
    private final Semaphore reads = new Semaphore(4 * Runtime.getRuntime().availableProcessors());

    private MemoryService(ServiceConfig config, ApiKeys keys, Retrieval retrieval, Clock clock) throws IOException {
        this.config = config;
        this.keys = keys;
        this.retrieval = retrieval;
        this.clock = clock;
        this.producer = new EngramProducer(config.kafka(), new Properties(), config.limits());
        this.kafkaAdmin = Admin.create(config.kafka().config());
        this.forgetLog = new ForgetLog(config.postgresUrl(), config.postgresUser(), Secrets.resolve(config.postgresPassword()));
        this.cycleHistory = new CycleHistory(forgetLog, config.collapse());
        this.rateLimiter = new RateLimiter(config.ratePerSecond(), config.burst(), System::nanoTime);
        this.mcp = new McpEndpoint(this);
        this.server = HttpServer.create(new InetSocketAddress(config.host(), config.port()), 256);
        this.workers = Executors.newFixedThreadPool(64);
        server.setExecutor(workers);
        server.createContext("/", this::handle);
        server.start();
    }

    /** Starts the service over the index at {@code config}, embedding queries with the index's model. */
    public static MemoryService start(ServiceConfig config, ApiKeys keys) throws IOException {
        Retrieval retrieval = Retrieval.open(config.openSearch(), config.index());
        try {
            return new MemoryService(config, keys, retrieval, Clock.systemUTC());
        } catch (IOException | RuntimeException e) {
            retrieval.close();
            throw e;
        }
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** A successful answer: its status and body (JSON, text for /metrics, or none). */
    record Answer(int status, Object body) {
    }

    private void handle(HttpExchange exchange) throws IOException {
        long started = System.nanoTime();
        String route = "unmatched";
        int status;
        try (exchange) {
            String method = exchange.getRequestMethod();
            String rawPath = exchange.getRequestURI().getRawPath();
            try {
                Route matched = null;
                String parameter = null;
                for (Route r : ROUTES) {
                    Optional<String> p = r.match(method, rawPath);
                    if (p.isPresent()) {
                        matched = r;
                        parameter = p.get();
                        break;
                    }
                }
                if (matched == null) {
                    boolean otherMethod = ROUTES.stream().anyMatch(r -> r.match(r.method(), rawPath).isPresent());
                    throw otherMethod ? new ApiError(405, "method_not_allowed", method + " is not allowed on " + rawPath)
                            : new ApiError(404, "not_found", "no such endpoint: " + rawPath);
                }
                route = matched.method() + " " + matched.template();
                Answer answer = dispatch(matched, parameter, exchange);
                status = answer.status();
                respond(exchange, status, answer.body());
            } catch (ApiError e) {
                status = e.status;
                if (e.status == 401 || e.status == 403) {
                    metrics.authFailure();
                }
                if (e.retryAfterSeconds > 0) {
                    metrics.rateLimited();
                    exchange.getResponseHeaders().set("Retry-After", String.valueOf(e.retryAfterSeconds));
                }
                respond(exchange, e.status, error(e.code, e.getMessage()));
            } catch (SQLException e) {
                LOG.warn("PostgreSQL failed during {} {}", method, rawPath, e);
                status = 503;
                respond(exchange, 503, error("postgres_unavailable", "the forget log is unavailable; retry"));
            } catch (RuntimeException e) {
                LOG.error("request failed: {} {}", method, rawPath, e);
                status = 500;
                respond(exchange, 500, error("internal_error", "the request failed; see the server log"));
            }
        }
        metrics.record(route, status, System.nanoTime() - started);
    }

    private Answer dispatch(Route route, String parameter, HttpExchange exchange)
            throws ApiError, IOException, SQLException {
        switch (route.template()) {
            case "/healthz":
                return new Answer(200, ResponsesJson.JSON.createObjectNode().put("status", "ok"));
            case "/readyz":
                return readiness();
            case "/metrics":
                return new Answer(200, metrics.prometheusText());
            case "/openapi.json":
                return new Answer(200, OpenApi.document());
            case "/console/", "/console/{file}":
                return ConsoleAssets.get(parameter).map(a -> new Answer(200, a))
                        .orElseThrow(() -> new ApiError(404, "not_found", "no such console file: " + parameter));
            default:
                break;
        }
        ApiKeys.Caller caller = authenticate(exchange);
        long wait = rateLimiter.acquire(caller.keyId());
        if (wait > 0) {
            throw new ApiError(429, "rate_limited", "too many requests for this key; retry after " + wait + " s", wait);
        }
        String tenant = tenantOf(caller, route, exchange);
        return switch (route.method() + " " + route.template()) {
            case "POST /v1/turns" -> write(tenant, PayloadKind.TURN, readBody(exchange, MAX_BODY_BYTES));
            case "POST /v1/memories" -> write(tenant, PayloadKind.MEMORY, readBody(exchange, MAX_BODY_BYTES));
            case "POST /v1/documents" -> write(tenant, PayloadKind.DOC,
                    readBody(exchange, config.limits().maxDocumentBytes() + 64 * 1024));
            case "POST /v1/context" -> {
                JsonNode body = readBody(exchange, MAX_BODY_BYTES);
                Stages stages = new Stages();
                ObjectNode context = reading(() -> context(tenant, body, stages));
                exchange.getResponseHeaders().set("Server-Timing", stages.serverTiming());
                yield new Answer(200, context);
            }
            case "POST /v1/search" -> {
                JsonNode body = readBody(exchange, MAX_BODY_BYTES);
                Stages stages = new Stages();
                ObjectNode results = reading(() -> search(tenant, body, stages));
                exchange.getResponseHeaders().set("Server-Timing", stages.serverTiming());
                yield new Answer(200, results);
            }
            case "GET /v1/memories" -> new Answer(200, reading(() -> list(tenant, query(exchange))));
            case "GET /v1/memories/{id}" -> {
                MemoryRecord r = retrieval.store().get(tenant, parameter)
                        .orElseThrow(() -> new ApiError(404, "not_found", "no memory " + parameter));
                ObjectNode record = ResponsesJson.record(r);
                RecordIds.sourceIds(r).forEach(record.putArray("source_ids")::add);
                yield new Answer(200, record);
            }
            case "DELETE /v1/memories/{id}" -> forget(tenant, ForgetScope.MEMORY, parameter);
            case "DELETE /v1/sessions/{session_id}" -> forget(tenant, ForgetScope.SESSION, parameter);
            case "DELETE /v1/users/{user_id}" -> forget(tenant, ForgetScope.USER, parameter);
            case "GET /v1/forgets/{forget_id}" -> new Answer(200, ResponsesJson.forget(forgetLog.status(tenant, parameter)
                    .orElseThrow(() -> new ApiError(404, "not_found", "no forget " + parameter))));
            case "GET /v1/health" -> new Answer(200, cycleHistory.of(tenant, limit(query(exchange), 200, 1000)));
            case "GET /v1/rejects" -> new Answer(200, rejects(tenant, limit(query(exchange), 20, MAX_PAGE)));
            case "GET /v1/tenants" -> {
                ObjectNode answer = ResponsesJson.JSON.createObjectNode();
                ArrayNode tenants = answer.putArray("tenants");
                (caller.operator() ? cycleHistory.tenants() : List.of(tenant)).forEach(tenants::add);
                yield new Answer(200, answer.put("operator", caller.operator()));
            }
            case "POST /mcp" -> mcp.handle(tenant, readBytes(exchange, MAX_BODY_BYTES));
            default -> throw new IllegalStateException("route without a handler: " + route);
        };
    }

    interface Read {
        ObjectNode run() throws ApiError;
    }

    /** Runs a read within the bound on concurrent reads. */
    ObjectNode reading(Read read) throws ApiError {
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

    /**
     * The tenant a request acts for: its key's. An operator key reads any tenant, named with
     * {@value #TENANT_HEADER}, and may not write or forget; a tenant key naming another tenant is refused.
     */
    private String tenantOf(ApiKeys.Caller caller, Route route, HttpExchange exchange) throws ApiError, SQLException {
        String named = exchange.getRequestHeaders().getFirst(TENANT_HEADER);
        String endpoint = route.method() + " " + route.template();
        if (!caller.operator()) {
            if (named != null && !named.equals(caller.tenantId())) {
                forgetLog.audit(caller.tenantId(), "cross_tenant", endpoint + " named tenant " + named);
                throw new ApiError(403, "forbidden", "the API key's tenant is " + caller.tenantId());
            }
            return caller.tenantId();
        }
        if (!OPERATOR_ROUTES.contains(endpoint)) {
            throw new ApiError(403, "forbidden", "an operator key reads every tenant and writes none: " + endpoint);
        }
        if (endpoint.equals("GET /v1/tenants")) {
            return ApiKeys.OPERATOR;
        }
        if (named == null || !ApiKeys.isTenantId(named)) {
            throw new ApiError(400, "invalid_request", "an operator key names the tenant to read in " + TENANT_HEADER);
        }
        return named;
    }

    private static int limit(Map<String, String> query, int fallback, int max) throws ApiError {
        try {
            int limit = Integer.parseInt(query.getOrDefault("limit", String.valueOf(fallback)));
            if (limit >= 1 && limit <= max) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // the message below
        }
        throw new ApiError(400, "invalid_request", "limit must be an integer from 1 to " + max);
    }

    /**
     * The tenant's newest rejects, up to {@code perReason} of each reason, newest first, among the last
     * {@value #REJECTS_SCANNED_PER_PARTITION} records of each partition of the rejects topic.
     */
    private ObjectNode rejects(String tenant, int perReason) throws ApiError {
        List<ConsumerRecord<byte[], byte[]>> tail;
        try {
            tail = TopicReader.readTail(config.kafka(), Topics.REJECTS, REJECTS_SCANNED_PER_PARTITION);
        } catch (KafkaException e) {
            throw new ApiError(503, "unavailable", "the rejects topic did not read: " + e.getMessage());
        }
        tail.sort(Comparator.comparingLong((ConsumerRecord<byte[], byte[]> r) -> r.timestamp()).reversed());
        Map<String, Integer> taken = new LinkedHashMap<>();
        ObjectNode answer = ResponsesJson.JSON.createObjectNode().put("tenant_id", tenant);
        ArrayNode rejects = answer.putArray("rejects");
        for (var r : tail) {
            JsonNode reject;
            try {
                reject = ResponsesJson.JSON.readTree(r.value());
            } catch (IOException e) {
                continue; // not a reject.v1 record: nothing of this tenant's
            }
            String reason = reject.path("reason_code").asText();
            if (tenant.equals(reject.path("tenant_id").asText(null)) && taken.merge(reason, 1, Integer::sum) <= perReason) {
                ((ObjectNode) reject).put("rejected_at", Instant.ofEpochMilli(r.timestamp()).toString());
                rejects.add(reject);
            }
        }
        return answer;
    }

    private ApiKeys.Caller authenticate(HttpExchange exchange) throws ApiError {
        String key = exchange.getRequestHeaders().getFirst("X-Api-Key");
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        if (key == null && authorization != null && authorization.startsWith("Bearer ")) {
            key = authorization.substring("Bearer ".length()).trim();
        }
        String presented = key;
        return keys.identify(presented).orElseThrow(() -> new ApiError(401, "unauthorized",
                presented == null ? "an API key is required" : "unknown API key"));
    }

    private Answer readiness() {
        ObjectNode checks = ResponsesJson.JSON.createObjectNode();
        boolean ready = true;
        try {
            retrieval.store().embeddingModel();
            checks.put("opensearch", "ok");
        } catch (RuntimeException e) {
            checks.put("opensearch", "unavailable: " + e.getMessage());
            ready = false;
        }
        try {
            kafkaAdmin.describeCluster().nodes().get(2, TimeUnit.SECONDS);
            checks.put("kafka", "ok");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            checks.put("kafka", "interrupted");
            ready = false;
        } catch (ExecutionException | TimeoutException e) {
            checks.put("kafka", "unavailable: " + e);
            ready = false;
        }
        boolean postgres = forgetLog.reachable();
        checks.put("postgres", postgres ? "ok" : "unavailable");
        ready &= postgres;
        ObjectNode body = ResponsesJson.JSON.createObjectNode().put("status", ready ? "ready" : "not_ready");
        body.set("checks", checks);
        return new Answer(ready ? 200 : 503, body);
    }

    private static byte[] readBytes(HttpExchange exchange, int maxBytes) throws ApiError, IOException {
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
            body = in.readNBytes(maxBytes + 1);
        }
        if (body.length > maxBytes) {
            throw new ApiError(413, "request_too_large", "this request body is limited to " + maxBytes + " bytes");
        }
        return body;
    }

    private static JsonNode readBody(HttpExchange exchange, int maxBytes) throws ApiError, IOException {
        byte[] body = readBytes(exchange, maxBytes);
        try {
            JsonNode json = ResponsesJson.JSON.readTree(body);
            if (json == null || !json.isObject()) {
                throw new ApiError(400, "invalid_json", "the body must be a JSON object");
            }
            return json;
        } catch (JsonProcessingException e) {
            throw new ApiError(400, "invalid_json", "the body is not valid JSON: " + e.getOriginalMessage());
        }
    }

    /**
     * One record or {@code {"records": [...]}}: each validated as the pipeline validates it, the valid ones sent
     * and acknowledged by Kafka before the answer; ids are the records' ids in the store, so a retry rewrites.
     */
    Answer write(String tenant, PayloadKind kind, JsonNode body) throws ApiError, SQLException {
        List<JsonNode> items = new ArrayList<>();
        if (body.has("records")) {
            if (!body.get("records").isArray() || body.size() != 1) {
                throw new ApiError(400, "invalid_request", "a batch is {\"records\": [...]} and nothing else");
            }
            body.get("records").forEach(items::add);
        } else {
            items.add(body);
        }
        if (items.isEmpty()) {
            throw new ApiError(400, "invalid_request", "no records");
        }
        if (items.size() > config.maxBatch()) {
            throw new ApiError(413, "batch_too_large", "a request carries at most " + config.maxBatch() + " records");
        }
        for (JsonNode item : items) {
            JsonNode named = item.get("tenant_id");
            if (named != null && !named.asText().equals(tenant)) {
                forgetLog.audit(tenant, "cross_tenant", "POST " + kind.topic() + " named tenant " + named);
                throw new ApiError(403, "forbidden", "the API key's tenant is " + tenant + "; a record may not name another");
            }
        }
        Instant now = clock.instant();
        ArrayNode accepted = ResponsesJson.JSON.createArrayNode();
        ArrayNode rejected = ResponsesJson.JSON.createArrayNode();
        List<Future<?>> sends = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            if (!(items.get(i) instanceof ObjectNode item)) {
                rejected.addObject().put("index", i).put("code", "not_an_object").put("message", "a record is a JSON object");
                continue;
            }
            ObjectNode payload = withDefaults(kind, tenant, item.deepCopy(), now);
            try {
                sends.add(producer.send(Payload.of(kind, payload))); // validates as the pipeline does, then sends
            } catch (InvalidPayloadException bad) {
                rejected.addObject().put("index", i).put("code", bad.reason().code()).put("message", bad.detail());
                continue;
            }
            accepted.add(storeId(kind, tenant, payload));
        }
        awaitAcks(sends);
        ObjectNode answer = ResponsesJson.JSON.createObjectNode();
        answer.set("accepted", accepted);
        answer.set("rejected", rejected);
        return new Answer(accepted.isEmpty() ? 400 : 202, answer);
    }

    /** The contract's fixed fields, and what a caller may leave out: the time, and a memory's id, type and op. */
    private static ObjectNode withDefaults(PayloadKind kind, String tenant, ObjectNode payload, Instant now) {
        payload.put("schema", kind.schema());
        payload.put("tenant_id", tenant);
        if (!payload.has("ts")) {
            payload.put("ts", now.toString());
        }
        if (kind == PayloadKind.MEMORY) {
            if (!payload.has("op")) {
                payload.put("op", "upsert");
            }
            if (!payload.has("type")) {
                payload.put("type", RecordType.MEMORY.label());
            }
            if (!payload.has("memory_id") && payload.path("text").isTextual()) {
                payload.put("memory_id", contentId(payload.get("text").asText()));
            }
        }
        return payload;
    }

    /** A memory without an id is named by its text, so writing it twice keeps one. */
    private static String contentId(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return "m-" + HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String storeId(PayloadKind kind, String tenant, ObjectNode p) {
        return switch (kind) {
            case TURN -> RecordIds.turn(tenant, p.get("session_id").asText(), p.get("turn_id").asText());
            case MEMORY -> RecordIds.memory(tenant, p.get("memory_id").asText());
            case DOC -> Payload.of(kind, p).key();
            case FORGET -> throw new IllegalArgumentException("forgets are not written through this endpoint");
        };
    }

    private static void awaitAcks(List<Future<?>> sends) throws ApiError {
        try {
            for (Future<?> send : sends) {
                send.get(KAFKA_ACK_SECONDS, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiError(503, "unavailable", "interrupted while Kafka acknowledged the records");
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("a write was not acknowledged by Kafka", e);
            throw new ApiError(503, "kafka_unavailable", "Kafka did not acknowledge the records; retry (ids are stable)");
        }
    }

    ObjectNode context(String tenant, JsonNode body, Stages stages) throws ApiError {
        String session = optionalText(body, "session_id");
        String user = optionalText(body, "user_id");
        String query = requiredText(body, "query");
        int budget = boundedInt(body, "budget_tokens", 1, MAX_BUDGET_TOKENS, null);
        AssembledContext c = retrieval.context().assemble(new ContextService.Request(tenant, session, user, query, budget),
                clock.instant(), stages);
        return ResponsesJson.context(tenant, c);
    }

    ObjectNode search(String tenant, JsonNode body, Stages stages) throws ApiError {
        String query = requiredText(body, "query");
        int k = boundedInt(body, "k", 1, MAX_K, 10);
        Set<RecordType> types = EnumSet.noneOf(RecordType.class);
        JsonNode typeList = body.get("types");
        if (typeList != null && !typeList.isNull()) {
            if (!typeList.isArray()) {
                throw new ApiError(400, "invalid_request", "types must be an array of record types");
            }
            for (JsonNode t : typeList) {
                types.add(recordType(t.asText()));
            }
        }
        List<HybridRetriever.Result> results = retrieval.retriever().search(new HybridRetriever.Query(tenant, query,
                optionalText(body, "session_id"), optionalText(body, "user_id"), types, k, clock.instant()), stages);
        return ResponsesJson.search(tenant, results);
    }

    private ObjectNode list(String tenant, Map<String, String> query) throws ApiError {
        Map<String, Object> terms = new LinkedHashMap<>();
        for (String field : List.of("session_id", "user_id")) {
            if (query.containsKey(field)) {
                terms.put(field, query.get(field));
            }
        }
        Set<RecordType> types = query.containsKey("type") ? EnumSet.of(recordType(query.get("type")))
                : EnumSet.noneOf(RecordType.class);
        int limit;
        try {
            limit = Integer.parseInt(query.getOrDefault("limit", "20"));
        } catch (NumberFormatException e) {
            limit = -1;
        }
        if (limit < 1 || limit > MAX_PAGE) {
            throw new ApiError(400, "invalid_request", "limit must be an integer from 1 to " + MAX_PAGE);
        }
        try {
            MemoryStore.Page page = retrieval.store().list(tenant, terms, types, limit, query.get("cursor"));
            return ResponsesJson.page(page);
        } catch (IllegalArgumentException e) {
            throw new ApiError(400, "invalid_request", e.getMessage());
        }
    }

    /**
     * Records the request, then sends the forget through Kafka (so it is ordered after the writes before it and
     * applied exactly once by the pipeline); {@code GET /v1/forgets/{id}} says when OpenSearch no longer has it.
     */
    Answer forget(String tenant, ForgetScope scope, String target) throws ApiError, SQLException {
        if (target.isBlank() || target.length() > 600) {
            throw new ApiError(400, "invalid_request", "the id must be 1 to 600 characters");
        }
        if (scope == ForgetScope.MEMORY && retrieval.store().get(tenant, target).isEmpty()) {
            throw new ApiError(404, "not_found", "no memory " + target);
        }
        String forgetId = "fgt-" + UUID.randomUUID();
        Instant now = clock.instant();
        forgetLog.requested(tenant, forgetId, scope.label(), target, now);
        forgetLog.audit(tenant, "forget", scope.label() + " " + target + " as " + forgetId);
        awaitAcks(List.of(producer.send(Payload.forget(tenant, forgetId, scope.label(), target, now))));
        ObjectNode answer = ResponsesJson.JSON.createObjectNode().put("forget_id", forgetId).put("scope", scope.label())
                .put("target", target).put("status", "pending");
        return new Answer(202, answer);
    }

    private static RecordType recordType(String label) throws ApiError {
        try {
            return RecordType.ofLabel(label);
        } catch (IllegalArgumentException e) {
            throw new ApiError(400, "invalid_request", "unknown record type: " + label);
        }
    }

    private static Map<String, String> query(HttpExchange exchange) {
        Map<String, String> params = new LinkedHashMap<>();
        String raw = exchange.getRequestURI().getRawQuery();
        if (raw == null || raw.isEmpty()) {
            return params;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            if (!value.isEmpty()) {
                params.put(name, value);
            }
        }
        return params;
    }

    private static String requiredText(JsonNode body, String field) throws ApiError {
        String value = optionalText(body, field);
        if (value == null || value.isBlank()) {
            throw new ApiError(400, "invalid_request", field + " is required");
        }
        return value;
    }

    private static String optionalText(JsonNode body, String field) throws ApiError {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw new ApiError(400, "invalid_request", field + " must be a string");
        }
        if (value.asText().length() > MAX_QUERY_CHARS) {
            throw new ApiError(400, "invalid_request", field + " is longer than " + MAX_QUERY_CHARS + " characters");
        }
        return value.asText();
    }

    private static int boundedInt(JsonNode body, String field, int min, int max, Integer fallback) throws ApiError {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) {
            if (fallback == null) {
                throw new ApiError(400, "invalid_request", field + " is required");
            }
            return fallback;
        }
        if (!value.canConvertToInt() || !value.isIntegralNumber() || value.asInt() < min || value.asInt() > max) {
            throw new ApiError(400, "invalid_request", field + " must be an integer from " + min + " to " + max);
        }
        return value.asInt();
    }

    private static ObjectNode error(String code, String message) {
        ObjectNode root = ResponsesJson.JSON.createObjectNode();
        root.putObject("error").put("code", code).put("message", message);
        return root;
    }

    /** The store the service reads, for the MCP endpoint's documents. */
    MemoryStore store() {
        return retrieval.store();
    }

    private static void respond(HttpExchange exchange, int status, Object body) throws IOException {
        if (body == null) {
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        byte[] bytes;
        if (body instanceof ConsoleAssets.Asset asset) {
            bytes = asset.bytes();
            exchange.getResponseHeaders().set("Content-Type", asset.contentType());
            // the console runs no script but its own, loads nothing from elsewhere, and is never framed
            exchange.getResponseHeaders().set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'");
            exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        } else if (body instanceof String text) {
            bytes = text.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
        } else {
            bytes = ResponsesJson.JSON.writeValueAsBytes(body);
            exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
        }
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        workers.shutdownNow();
        try (retrieval; producer; forgetLog) {
            kafkaAdmin.close();
        }
    }
}
