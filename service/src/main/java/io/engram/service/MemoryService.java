package io.engram.service;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The memory service (docs/operations.md, "The memory service"; the API in docs/api.md): a tenant's writes go
 * to Kafka after the pipeline's own validation, reads and context assembly come from OpenSearch, forgets go
 * through Kafka like every write and are tracked in PostgreSQL. The tenant comes only from the API key
 * ({@code Authorization: Bearer KEY} or {@code X-Api-Key}); a body naming another tenant is refused and audited.
 * Every error is JSON {@code {"error": {"code", "message"}}}. Stateless: replicas share nothing but the stores.
 *
 * <p>This class is the HTTP server and its gate: it finds a request's {@link Route}, checks the key (the key file's
 * or one made by API, {@link KeyDirectory}), its {@link Scope}, the tenant as the route's {@link Route.Access}
 * says and that it is active, and the tenant's rate ({@link QuotaGate}), and hands the request to the route's handler
 * ({@link HttpApi}, over the transport-neutral {@link Operations}, which {@code POST /mcp} also calls through
 * {@link McpEndpoint}). What it talks to comes in as {@link ServiceBackends}.
 */
public final class MemoryService implements AutoCloseable {

    /** Bodies of every endpoint but {@code /v1/documents}, whose bound follows {@code limits.document-bytes}. */
    public static final int MAX_BODY_BYTES = 1024 * 1024;
    static final String TENANT_HEADER = "X-Engram-Tenant";

    static {
        // The JDK server writes a response's headers and body separately; with Nagle's algorithm on, the body
        // waits for the client's delayed ACK of the headers (~40 ms on Linux). Read once, when the first server
        // starts; bench api measured the difference (docs/benchmarks.md).
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private final ApiKeys keys;
    private final ServiceBackends backends;
    private final KeyDirectory directory;
    private final UsageMeter meter;
    private final QuotaGate quotas;
    private final ServiceMetrics metrics = new ServiceMetrics();
    private final HttpApi api;
    private final HttpServer server;
    private final ExecutorService workers;

    /** Serves {@code backends} at {@code config}'s address; closing the service closes them. */
    MemoryService(ServiceConfig config, ApiKeys keys, ServiceBackends backends) throws IOException {
        this.keys = keys;
        this.backends = backends;
        this.directory = new KeyDirectory(backends.tenants(), backends.clock());
        this.meter = new UsageMeter(backends.usage(), backends.clock(), config.quotas().metering());
        this.quotas = new QuotaGate(config.quotas(), directory, backends.reads(), meter, System::nanoTime);
        Operations operations = new Operations(backends, config.maxBatch(), meter, quotas);
        this.api = new HttpApi(operations, new Administration(directory, operations, meter, backends.usage(),
                backends.webhooks(), backends.clock()), new Webhooks(backends.webhooks(), backends.clock()), quotas,
                metrics, config);
        this.server = HttpServer.create(new InetSocketAddress(config.host(), config.port()), 256);
        this.workers = Executors.newFixedThreadPool(64);
        server.setExecutor(workers);
        server.createContext("/", this::handle);
        server.start();
    }

    /** Starts the service over the servers {@code config} names, embedding queries with the index's model. */
    public static MemoryService start(ServiceConfig config, ApiKeys keys) throws IOException {
        ServiceBackends backends = ServiceBackends.connect(config);
        try {
            return new MemoryService(config, keys, backends);
        } catch (IOException | RuntimeException e) {
            backends.close();
            throw e;
        }
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        long started = System.nanoTime();
        String method = exchange.getRequestMethod();
        String rawPath = exchange.getRequestURI().getRawPath();
        String route = "unmatched";
        boolean counted = false;
        try (exchange) {
            try {
                Routes.Match match = Routes.find(method, rawPath);
                route = match.route().toString();
                Reply reply = match.endpoint().handler().handle(api, admit(match, exchange));
                reply.headers().forEach(exchange.getResponseHeaders()::set);
                // counted before the answer is written: a caller holding the answer finds it in /metrics
                metrics.record(route, reply.status(), System.nanoTime() - started);
                counted = true;
                respond(exchange, reply.status(), reply.body());
            } catch (ApiError | SQLException | RuntimeException e) {
                ApiError error = ApiError.of(e, method + " " + rawPath);
                if (!counted) {
                    metrics.record(route, error.status, System.nanoTime() - started);
                }
                refused(exchange, error);
            }
        }
    }

    private void refused(HttpExchange exchange, ApiError error) throws IOException {
        if (error.code.equals("quota_exceeded")) {
            metrics.quotaRefusal();
        } else if (error.status == 401 || error.status == 403) {
            metrics.authFailure();
        }
        if (error.retryAfterSeconds > 0) {
            metrics.rateLimited();
            exchange.getResponseHeaders().set("Retry-After", String.valueOf(error.retryAfterSeconds));
        }
        respond(exchange, error.status, ResponsesJson.error(error));
    }

    /** The call a route's handler gets, once the key, the rate limit and the tenant pass the route's access. */
    private HttpCall admit(Routes.Match match, HttpExchange exchange) throws ApiError, SQLException {
        if (match.route().access() == Route.Access.PUBLIC) {
            return new HttpCall(exchange, null, null, match.parameter());
        }
        ApiKeys.Caller caller = authenticate(exchange);
        Route route = match.route();
        Scope.require(caller.scopes(), route.scope());
        String tenant = tenantOf(caller, route, exchange.getRequestHeaders().getFirst(TENANT_HEADER));
        if (!caller.operator()) {
            requireActive(tenant);
        }
        boolean write = route.scope() == Scope.WRITE || route.scope() == Scope.FORGET;
        quotas.admitRequest(caller.operator() ? "operator/" + caller.keyId() : tenant, tenant, write);
        return new HttpCall(exchange, caller, tenant, match.parameter());
    }

    /** A suspended tenant's keys are refused until it is active again, a deleted tenant's for good. */
    private void requireActive(String tenant) throws ApiError {
        TenantStore.Status status = directory.tenant(tenant).map(TenantStore.Tenant::status)
                .orElse(TenantStore.Status.ACTIVE);
        if (status == TenantStore.Status.SUSPENDED) {
            throw new ApiError(403, "tenant_suspended", "tenant " + tenant + " is suspended");
        }
        if (status == TenantStore.Status.DELETING) {
            throw new ApiError(401, "unauthorized", "tenant " + tenant + " was deleted");
        }
    }

    private ApiKeys.Caller authenticate(HttpExchange exchange) throws ApiError {
        String key = exchange.getRequestHeaders().getFirst("X-Api-Key");
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        if (key == null && authorization != null && authorization.startsWith("Bearer ")) {
            key = authorization.substring("Bearer ".length()).trim();
        }
        if (key == null) {
            throw new ApiError(401, "unauthorized", "an API key is required");
        }
        byte[] digest = ApiKeys.digest(key);
        return keys.identify(digest).or(() -> directory.identify(digest))
                .orElseThrow(() -> new ApiError(401, "unauthorized", "unknown, revoked or expired API key"));
    }

    /**
     * The tenant a request acts for: its key's. An operator key reads any tenant, named with
     * {@value #TENANT_HEADER}, and may not write or forget; a tenant key naming another tenant is refused.
     */
    private String tenantOf(ApiKeys.Caller caller, Route route, String named) throws ApiError, SQLException {
        if (!caller.operator()) {
            if (route.access() == Route.Access.OPERATOR) {
                throw ApiError.forbidden("only an operator admin key administers tenants: " + route);
            }
            if (named != null && !named.equals(caller.tenantId())) {
                backends.forgets().audit(caller.tenantId(), "cross_tenant", route + " named tenant " + named);
                throw ApiError.forbidden("the API key's tenant is " + caller.tenantId());
            }
            return caller.tenantId();
        }
        return switch (route.access()) {
            case DIRECTORY, OPERATOR -> ApiKeys.OPERATOR;
            case READ -> {
                if (named == null || !ApiKeys.isTenantId(named)) {
                    throw ApiError.invalid("an operator key names the tenant to read in " + TENANT_HEADER);
                }
                yield named;
            }
            default -> throw ApiError.forbidden("an operator key reads every tenant and writes none: " + route);
        };
    }

    private static void respond(HttpExchange exchange, int status, Object body) throws IOException {
        if (body == null) {
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        if (body instanceof Reply.Streamed streamed) {
            exchange.getResponseHeaders().set("Content-Type", streamed.contentType());
            exchange.sendResponseHeaders(status, 0); // chunked
            try (OutputStream out = exchange.getResponseBody()) {
                streamed.writeTo(out);
            }
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
        directory.close();
        quotas.close();
        meter.close(); // this replica's last counts reach the ledger
        backends.close();
    }
}
