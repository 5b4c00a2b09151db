package io.engram.service;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.Properties;

/**
 * A memory service on a free port of 127.0.0.1 over {@link InMemoryBackends}, and an HTTP client for it: the
 * whole HTTP path (routes, keys, rate limits, bounds, JSON) without Kafka, OpenSearch or PostgreSQL.
 */
final class ServiceHarness implements AutoCloseable {

    static final String ACME = "acme-key-0123456789";
    static final String GLOBEX = "globex-key-0123456789";
    static final String OPERATOR = "operator-key-0123456789";
    static final String ADMIN = "admin-key-0123456789";

    /** An answer: status, JSON body (null when not JSON) and the raw response. */
    record Answer(int status, JsonNode body, HttpResponse<String> raw) {
        String code() {
            return body.at("/error/code").asText();
        }

        String message() {
            return body.at("/error/message").asText();
        }
    }

    final InMemoryBackends backends = new InMemoryBackends();
    final MemoryService service;
    private final HttpClient http = HttpClient.newHttpClient();

    ServiceHarness() {
        this(new Properties());
    }

    /** With settings over the defaults (service.max-batch, limits.*, service.rate-limit.*). */
    ServiceHarness(Properties settings) {
        Properties p = new Properties();
        p.setProperty("service.host", "127.0.0.1");
        p.setProperty("service.port", "0");
        p.putAll(settings);
        ApiKeys keys = ApiKeys.of(Map.of("acme", ACME, "globex", GLOBEX, ApiKeys.OPERATOR, OPERATOR,
                ApiKeys.ADMIN_GRANT, ADMIN));
        try {
            service = new MemoryService(ServiceConfig.from(p, Map.of()), keys, backends.backends());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    Answer call(String method, String path, String key, String body) throws Exception {
        return call(method, path, key, null, body);
    }

    /** A request with {@code key} (none when null), naming {@code tenant} in X-Engram-Tenant when not null. */
    Answer call(String method, String path, String key, String tenant, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            request.header("Authorization", "Bearer " + key);
        }
        if (tenant != null) {
            request.header(MemoryService.TENANT_HEADER, tenant);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        boolean json = response.headers().firstValue("Content-Type").orElse("").startsWith("application/json");
        return new Answer(response.statusCode(), json ? ResponsesJson.JSON.readTree(response.body()) : null, response);
    }

    @Override
    public void close() {
        service.close();
    }
}
