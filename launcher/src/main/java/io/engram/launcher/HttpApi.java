package io.engram.launcher;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.engram.jobs.retrieval.ContextService;
import io.engram.jobs.retrieval.HybridRetriever;
import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.RecordType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tenant-safe HTTP API: {@code POST /v1/context} and {@code POST /v1/search}. The tenant comes only from
 * the API key ({@code Authorization: Bearer KEY} or {@code X-Api-Key}); requests are bounded in size and
 * fields; every error is JSON {@code {"error": {"code", "message"}}}.
 */
final class HttpApi implements AutoCloseable {

    static final int MAX_BODY_BYTES = 64 * 1024;
    static final int MAX_QUERY_CHARS = 4096;
    static final int MAX_BUDGET_TOKENS = 200_000;
    static final int MAX_K = 100;
    private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);

    private final HttpServer server;
    private final ExecutorService workers;
    private final ApiKeys keys;
    private final Retrieval retrieval;
    private final Clock clock;

    HttpApi(int port, ApiKeys keys, Retrieval retrieval, Clock clock) throws IOException {
        this.keys = keys;
        this.retrieval = retrieval;
        this.clock = clock;
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 64);
        this.workers = Executors.newFixedThreadPool(4);
        server.setExecutor(workers);
        server.createContext("/", this::handle);
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** A client-visible failure. */
    private static final class ApiError extends Exception {
        private static final long serialVersionUID = 1L;
        final int status;
        final String code;

        ApiError(int status, String code, String message) {
            super(message);
            this.status = status;
            this.code = code;
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            ObjectNode response;
            try {
                response = route(exchange);
            } catch (ApiError e) {
                respond(exchange, e.status, error(e.code, e.getMessage()));
                return;
            } catch (RuntimeException e) {
                LOG.error("request failed: {} {}", exchange.getRequestMethod(), exchange.getRequestURI(), e);
                respond(exchange, 500, error("internal_error", "the request failed; see the server log"));
                return;
            }
            respond(exchange, 200, response);
        }
    }

    private ObjectNode route(HttpExchange exchange) throws ApiError, IOException {
        String path = exchange.getRequestURI().getPath();
        if (!path.equals("/v1/context") && !path.equals("/v1/search")) {
            throw new ApiError(404, "not_found", "no such endpoint: " + path);
        }
        if (!"POST".equals(exchange.getRequestMethod())) {
            throw new ApiError(405, "method_not_allowed", path + " takes POST");
        }
        String tenant = authenticate(exchange);
        JsonNode body = readBody(exchange);
        return path.equals("/v1/context") ? context(tenant, body) : search(tenant, body);
    }

    private String authenticate(HttpExchange exchange) throws ApiError {
        String key = exchange.getRequestHeaders().getFirst("X-Api-Key");
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        if (key == null && authorization != null && authorization.startsWith("Bearer ")) {
            key = authorization.substring("Bearer ".length()).trim();
        }
        Optional<String> tenant = keys.tenantOf(key);
        if (tenant.isEmpty()) {
            throw new ApiError(401, "unauthorized", key == null ? "an API key is required" : "unknown API key");
        }
        return tenant.get();
    }

    private static JsonNode readBody(HttpExchange exchange) throws ApiError, IOException {
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
            body = in.readNBytes(MAX_BODY_BYTES + 1);
        }
        if (body.length > MAX_BODY_BYTES) {
            throw new ApiError(413, "request_too_large", "request bodies are limited to " + MAX_BODY_BYTES + " bytes");
        }
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

    private ObjectNode context(String tenant, JsonNode body) throws ApiError {
        String session = optionalText(body, "session_id");
        String user = optionalText(body, "user_id");
        String query = requiredText(body, "query");
        int budget = boundedInt(body, "budget_tokens", 1, MAX_BUDGET_TOKENS, null);
        AssembledContext c = retrieval.context().assemble(new ContextService.Request(tenant, session, user, query, budget),
                clock.instant());
        return ResponsesJson.context(tenant, c);
    }

    private ObjectNode search(String tenant, JsonNode body) throws ApiError {
        String query = requiredText(body, "query");
        int k = boundedInt(body, "k", 1, MAX_K, 10);
        Set<RecordType> types = EnumSet.noneOf(RecordType.class);
        JsonNode typeList = body.get("types");
        if (typeList != null && !typeList.isNull()) {
            if (!typeList.isArray()) {
                throw new ApiError(400, "invalid_request", "types must be an array of record types");
            }
            for (JsonNode t : typeList) {
                try {
                    types.add(RecordType.ofLabel(t.asText()));
                } catch (IllegalArgumentException e) {
                    throw new ApiError(400, "invalid_request", "unknown record type: " + t.asText());
                }
            }
        }
        return ResponsesJson.search(tenant, retrieval.retriever().search(new HybridRetriever.Query(tenant, query,
                optionalText(body, "session_id"), optionalText(body, "user_id"), types, k, clock.instant())));
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

    private static void respond(HttpExchange exchange, int status, ObjectNode body) throws IOException {
        byte[] bytes = ResponsesJson.JSON.writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        workers.shutdownNow();
    }
}
