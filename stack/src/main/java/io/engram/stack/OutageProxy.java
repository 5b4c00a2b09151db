package io.engram.stack;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP proxy in front of the real OpenSearch node that lets the first {@code passFirst} bulk requests
 * through, then refuses the next {@code refuse} ones (429 and 503 alternately, as an overloaded or restarting
 * cluster does), then forwards everything again. Every other request is forwarded untouched. With
 * {@link #failingBulk} one bulk request is instead answered as if OpenSearch refused every document in it for
 * good, which fails the writing task; with each {@link #failingDeleteByQuery} one delete by query (a
 * {@code _delete_by_query}, or the search that pages the store's deletes) is carried out and then answered with an
 * error, as when the connection drops after OpenSearch has answered.
 */
public final class OutageProxy implements AutoCloseable {

    private final HttpServer server;
    private final HttpClient upstream = HttpClient.newHttpClient();
    private final AtomicInteger bulks = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicInteger forwardedBulks = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final List<FailingDelete> failingDeletes = new CopyOnWriteArrayList<>();
    private volatile int failingBulk;
    private volatile int everyBulkStatus;

    /** A delete by query's answer to lose: the {@code n}-th whose body contains {@code marker}. */
    private record FailingDelete(int n, String marker, AtomicInteger seen) {
    }

    /** Answers the {@code n}-th bulk request with a permanent refusal of all its documents. */
    public OutageProxy failingBulk(int n) {
        failingBulk = n;
        return this;
    }

    /**
     * Forwards the {@code n}-th delete-by-query whose body contains {@code marker}, then answers it with a 500 as
     * if the answer was lost. Each call adds one such failure, counted by its own marker.
     */
    public OutageProxy failingDeleteByQuery(int n, String marker) {
        failingDeletes.add(new FailingDelete(n, marker, new AtomicInteger()));
        return this;
    }

    /** Answers every bulk request with a whole-request error of this HTTP status (401: a wrong password, …). */
    public OutageProxy answerEveryBulkWith(int status) {
        everyBulkStatus = status;
        return this;
    }

    public OutageProxy(String upstreamUrl, int passFirst, int refuse) {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", exchange -> {
            try (exchange) {
                byte[] body = exchange.getRequestBody().readAllBytes();
                boolean bulk = exchange.getRequestURI().getPath().endsWith("/_bulk");
                int n = bulk ? bulks.incrementAndGet() : 0;
                if (bulk && everyBulkStatus != 0) {
                    Forwarding.respond(exchange, everyBulkStatus, "{\"error\":{\"type\":\"security_exception\","
                            + "\"reason\":\"answered by the outage proxy\"},\"status\":" + everyBulkStatus + "}");
                    return;
                }
                if (bulk && n > passFirst && n <= passFirst + refuse) {
                    int status = refused.incrementAndGet() % 2 == 1 ? 429 : 503;
                    Forwarding.respond(exchange, status, "{\"error\":{\"type\":\"es_rejected_execution_exception\","
                            + "\"reason\":\"refused by the outage proxy\"},\"status\":" + status + "}");
                    return;
                }
                if (bulk && n == failingBulk) {
                    failed.incrementAndGet();
                    Forwarding.respond(exchange, 200, permanentRefusal(body));
                    return;
                }
                if (bulk) {
                    forwardedBulks.incrementAndGet();
                }
                String path = exchange.getRequestURI().getPath();
                if ((path.endsWith("/_delete_by_query") || path.endsWith("/_msearch"))
                        && losesAnswer(new String(body, StandardCharsets.UTF_8))) {
                    Forwarding.forward(upstream, upstreamUrl, exchange, body, false);
                    failed.incrementAndGet();
                    Forwarding.respond(exchange, 500, "{\"error\":{\"type\":\"node_disconnected_exception\","
                            + "\"reason\":\"answer lost by the outage proxy\"},\"status\":500}");
                    return;
                }
                Forwarding.forward(upstream, upstreamUrl, exchange, body, true);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        server.start();
    }

    /** Whether this delete-by-query is one whose answer is to be lost (every marker it holds counts it). */
    private boolean losesAnswer(String body) {
        boolean lose = false;
        for (FailingDelete f : failingDeletes) {
            if (body.contains(f.marker()) && f.seen().incrementAndGet() == f.n()) {
                lose = true;
            }
        }
        return lose;
    }

    /** A bulk response in which every document was refused for good (as a mapping error would). */
    private static String permanentRefusal(byte[] bulkBody) {
        StringBuilder items = new StringBuilder();
        for (String line : new String(bulkBody, StandardCharsets.UTF_8).split("\n")) {
            int at = line.indexOf("\"_id\":\"");
            if (line.startsWith("{\"index\"") || line.startsWith("{\"delete\"")) {
                String id = line.substring(at + 7, line.indexOf('"', at + 7));
                String op = line.startsWith("{\"index\"") ? "index" : "delete";
                items.append(items.isEmpty() ? "" : ",").append("{\"").append(op).append("\":{\"_id\":\"").append(id)
                        .append("\",\"status\":400,\"error\":{\"type\":\"mapper_parsing_exception\",")
                        .append("\"reason\":\"refused by the outage proxy\"}}}");
            }
        }
        return "{\"took\":1,\"errors\":true,\"items\":[" + items + "]}";
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Bulk requests refused so far. */
    public int refused() {
        return refused.get();
    }

    /** Bulk requests received, whatever their answer. */
    public int bulks() {
        return bulks.get();
    }

    /** Requests failed on purpose: bulk requests refused for good, delete-by-query answers lost. */
    public int failed() {
        return failed.get();
    }

    /** Bulk requests that reached OpenSearch. */
    public int forwardedBulks() {
        return forwardedBulks.get();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
