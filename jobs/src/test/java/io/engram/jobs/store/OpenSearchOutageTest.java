package io.engram.jobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedServicesExtension;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The real OpenSearch node behind a proxy that rejects the first bulk requests (429, then 503), as an
 * overloaded or restarting cluster does: the store backs off, retries and lands every record.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class OpenSearchOutageTest {

    @Test
    void rejectedBulkRequestsAreRetriedUntilTheyLand(EmbeddedOpenSearch openSearch) throws Exception {
        AtomicInteger rejected = new AtomicInteger();
        AtomicInteger forwardedBulks = new AtomicInteger();
        HttpClient upstream = HttpClient.newHttpClient();
        HttpServer proxy = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        proxy.createContext("/", exchange -> {
            try (exchange) {
                boolean bulk = exchange.getRequestURI().getPath().endsWith("/_bulk");
                if (bulk && rejected.get() < 2) {
                    int status = rejected.incrementAndGet() == 1 ? 429 : 503;
                    respond(exchange, status, "{\"error\":{\"type\":\"es_rejected_execution_exception\","
                            + "\"reason\":\"rejected by the test proxy\"},\"status\":" + status + "}");
                    return;
                }
                if (bulk) {
                    forwardedBulks.incrementAndGet();
                }
                byte[] body = exchange.getRequestBody().readAllBytes();
                HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(openSearch.httpUrl() + exchange.getRequestURI()))
                        .method(exchange.getRequestMethod(), body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(body));
                String type = exchange.getRequestHeaders().getFirst("Content-Type");
                if (type != null) {
                    request.header("Content-Type", type);
                }
                HttpResponse<byte[]> response = upstream.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
                exchange.getResponseHeaders().set("Content-Type",
                        response.headers().firstValue("Content-Type").orElse("application/json"));
                exchange.sendResponseHeaders(response.statusCode(), response.body().length == 0 ? -1 : response.body().length);
                if (response.body().length > 0) {
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(response.body());
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        proxy.start();
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore("http://127.0.0.1:" + proxy.getAddress().getPort(),
                "engram-memories-outage-test", new RetryPolicy(6, Duration.ofMillis(20), Duration.ofMillis(200)))) {
            store.ensureIndex(3);
            List<MemoryRecord> records = List.of(
                    Records.memory("outage", "outage-1", "first", new float[] {1, 0, 0}),
                    Records.memory("outage", "outage-2", "second", new float[] {0, 1, 0}));
            store.upsert(records);
            store.refresh();
            assertThat(rejected.get()).isEqualTo(2);
            assertThat(forwardedBulks.get()).isEqualTo(1);
            assertThat(store.find("outage", Map.of(), Set.of(), 10, null, true)).containsExactlyInAnyOrderElementsOf(records);
        } finally {
            proxy.stop(0);
        }
    }

    private static void respond(HttpExchange exchange, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
