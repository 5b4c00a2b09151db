package io.engram.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Executors;

/**
 * JSON over HTTP, straight to a server (OpenSearch's REST API, the memory service): what the bench measures
 * against, and how it reads what the servers hold. A status other than 2xx is an error naming the request.
 */
public final class RawHttp {

    public static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().executor(Executors.newFixedThreadPool(16))
            .connectTimeout(Duration.ofSeconds(10)).build();

    /** The answer's status, body and the server's own account of its time ({@code Server-Timing}, or empty). */
    public record Answer(int status, String body, String serverTiming) {
        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    public Answer send(String method, String url, String bearer, JsonNode body) {
        return send(method, url, bearer, null, body);
    }

    /** With an operator key, the tenant it reads for ({@code X-Engram-Tenant}). */
    public Answer send(String method, String url, String bearer, String forTenant, JsonNode body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(120))
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body.toString()));
        if (bearer != null) {
            request.header("Authorization", "Bearer " + bearer);
        }
        if (forTenant != null) {
            request.header("X-Engram-Tenant", forTenant);
        }
        try {
            HttpResponse<String> answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(answer.statusCode(), answer.body(), answer.headers().firstValue("Server-Timing").orElse(""));
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + url + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + method + " " + url, e);
        }
    }

    /** A 2xx answer's JSON; anything else is an error with the answer. */
    public JsonNode ok(String method, String url, String bearer, JsonNode body) {
        Answer answer = send(method, url, bearer, body);
        if (answer.status() / 100 != 2) {
            throw new IllegalStateException(method + " " + url + " answered " + answer.status() + ": "
                    + answer.body().substring(0, Math.min(500, answer.body().length())));
        }
        return answer.json();
    }

    public JsonNode get(String url) {
        return ok("GET", url, null, null);
    }

    public JsonNode post(String url, JsonNode body) {
        return ok("POST", url, null, body);
    }
}
