package io.engram.service;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToIntFunction;

/**
 * A real HTTP receiver of webhooks on 127.0.0.1 (the JDK's server): it records every request it answers, with
 * the headers a receiver checks, and answers each with the status {@link #answer} gives for its path. It can be
 * stopped and started again on the same port, as a receiver that goes down for a while.
 */
final class WebhookReceiver implements AutoCloseable {

    /** A request as received, and the status it was answered with. */
    record Received(String path, String changeId, String timestamp, String signature, String body, int status) {
        boolean acknowledged() {
            return status / 100 == 2;
        }
    }

    final List<Received> received = new CopyOnWriteArrayList<>();
    /** The status for a request to a path; 200 unless a test says otherwise. */
    volatile ToIntFunction<String> answer = path -> 200;
    /** How long each request takes to answer, so that a stream of deliveries lasts long enough to be cut. */
    volatile long answerMillis;
    private final int port;
    private HttpServer server;

    WebhookReceiver() {
        server = listen(0);
        port = server.getAddress().getPort();
    }

    String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    /** The change ids a path acknowledged (answered 2xx), in the order they came. */
    List<String> acknowledged(String path) {
        return received.stream().filter(r -> r.path().equals(path) && r.acknowledged()).map(Received::changeId).toList();
    }

    /** Stops listening once the requests under way are answered: the port refuses connections until {@link #restart}. */
    synchronized void stop() {
        server.stop(1);
    }

    synchronized void restart() {
        server = listen(port);
    }

    private HttpServer listen(int onPort) {
        try {
            HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", onPort), 50);
            s.createContext("/", this::handle);
            s.start();
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String path = exchange.getRequestURI().getPath();
            int status = answer.applyAsInt(path);
            Thread.sleep(answerMillis);
            received.add(new Received(path, exchange.getRequestHeaders().getFirst(WebhookSignature.CHANGE_ID),
                    exchange.getRequestHeaders().getFirst(WebhookSignature.TIMESTAMP),
                    exchange.getRequestHeaders().getFirst(WebhookSignature.SIGNATURE), body, status));
            exchange.sendResponseHeaders(status, -1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public synchronized void close() {
        server.stop(0);
    }
}
