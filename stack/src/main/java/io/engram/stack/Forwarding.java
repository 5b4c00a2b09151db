package io.engram.stack;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

/** What the test proxies in front of the real OpenSearch node share: forwarding a request, answering one. */
final class Forwarding {

    private Forwarding() {
    }

    /** Sends the request on to {@code upstreamUrl}; with {@code answer}, relays the answer. */
    static void forward(HttpClient upstream, String upstreamUrl, HttpExchange exchange, byte[] body, boolean answer)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(upstreamUrl + exchange.getRequestURI()))
                .method(exchange.getRequestMethod(), body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        String type = exchange.getRequestHeaders().getFirst("Content-Type");
        if (type != null) {
            request.header("Content-Type", type);
        }
        HttpResponse<byte[]> response = upstream.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        if (!answer) {
            return;
        }
        exchange.getResponseHeaders().set("Content-Type", response.headers().firstValue("Content-Type").orElse("application/json"));
        exchange.sendResponseHeaders(response.statusCode(), response.body().length == 0 ? -1 : response.body().length);
        if (response.body().length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(response.body());
            }
        }
    }

    static void respond(HttpExchange exchange, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
