package io.engram.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.model.retrieval.RecordType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * How many records of some types an index holds, as searches see them: one {@code _count} request, for a
 * benchmark's poller that runs beside the job it measures. The index is the run's own, so it counts every tenant.
 * The request runs on the calling thread over a kept-alive connection ({@link HttpURLConnection}): java.net.http's
 * client adds a selector thread and a worker per request, whose CPU lands on the measured job's core.
 */
final class SearchableCount {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final URL url;
    private final byte[] query;

    SearchableCount(String openSearchUrl, String index, Set<RecordType> types) {
        ObjectNode body = JSON.createObjectNode();
        ArrayNode labels = body.putObject("query").putObject("terms").putArray("type");
        types.forEach(t -> labels.add(t.label()));
        query = body.toString().getBytes(StandardCharsets.UTF_8);
        try {
            url = URI.create(openSearchUrl.replaceAll("/+$", "") + "/" + index + "/_count").toURL();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    long get() {
        try {
            HttpURLConnection http = (HttpURLConnection) url.openConnection();
            http.setRequestMethod("POST");
            http.setRequestProperty("Content-Type", "application/json");
            http.setDoOutput(true);
            try (OutputStream out = http.getOutputStream()) {
                out.write(query);
            }
            int status = http.getResponseCode();
            try (InputStream in = status == 200 ? http.getInputStream() : http.getErrorStream()) {
                byte[] response = in == null ? new byte[0] : in.readAllBytes(); // read to the end: the connection is reused
                if (status != 200) {
                    throw new IllegalStateException("count: HTTP " + status + ": "
                            + new String(response, StandardCharsets.UTF_8));
                }
                return JSON.readTree(response).path("count").asLong();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
