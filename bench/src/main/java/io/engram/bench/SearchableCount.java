package io.engram.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.model.retrieval.RecordType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Set;

/**
 * How many records of some types an index holds, as searches see them: one {@code _count} request, for a
 * benchmark's poller that runs beside the job it measures. The index is the run's own, so it counts every tenant.
 */
final class SearchableCount {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newHttpClient();
    private final HttpRequest request;

    SearchableCount(String openSearchUrl, String index, Set<RecordType> types) {
        ObjectNode query = JSON.createObjectNode();
        ArrayNode labels = query.putObject("query").putObject("terms").putArray("type");
        types.forEach(t -> labels.add(t.label()));
        request = HttpRequest.newBuilder(URI.create(openSearchUrl.replaceAll("/+$", "") + "/" + index + "/_count"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(query.toString()))
                .build();
    }

    long get() {
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("count: HTTP " + response.statusCode() + ": " + response.body());
            }
            return JSON.readTree(response.body()).path("count").asLong();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while counting", e);
        }
    }
}
