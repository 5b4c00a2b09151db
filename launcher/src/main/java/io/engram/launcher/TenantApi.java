package io.engram.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.service.ResponsesJson;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** One tenant's calls to the memory service's HTTP API, as an agent makes them: its key on every request. */
final class TenantApi {

    /** An answer: its status and JSON body (null when it has none). */
    record Answer(int status, JsonNode body) {
    }

    private final HttpClient http = HttpClient.newHttpClient();
    private final String url;
    private final String key;

    TenantApi(String url, String key) {
        this.url = url;
        this.key = key;
    }

    Answer post(String path, JsonNode body) throws IOException, InterruptedException {
        return send(request(path).POST(HttpRequest.BodyPublishers.ofString(body.toString())));
    }

    Answer get(String path) throws IOException, InterruptedException {
        return send(request(path).GET());
    }

    /** Any call: {@code body} null for none, {@code tenant} named in X-Engram-Tenant when not null (an operator key's). */
    Answer call(String method, String path, JsonNode body, String tenant) throws IOException, InterruptedException {
        HttpRequest.Builder request = request(path).method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body.toString()));
        if (tenant != null) {
            request.header("X-Engram-Tenant", tenant);
        }
        return send(request);
    }

    /** One path segment, such as a memory's own id. */
    static String segment(String id) {
        return URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + key);
    }

    private Answer send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        String body = response.body();
        return new Answer(response.statusCode(), body.isBlank() ? null : ResponsesJson.JSON.readTree(body));
    }
}
