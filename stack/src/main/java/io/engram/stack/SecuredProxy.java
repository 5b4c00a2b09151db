package io.engram.stack;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * OpenSearch as a secured cluster shows itself, in front of the real node: TLS with the given server key store
 * (PKCS12), and either HTTP basic authentication of one user, answering 401 with a challenge otherwise, as
 * OpenSearch's security plugin does, or AWS SigV4 signatures of one access key, answering 403 otherwise, as Amazon
 * OpenSearch Service does. Listens on every loopback address, so a client can reach it under a name its
 * certificate does not hold.
 */
public final class SecuredProxy implements AutoCloseable {

    private final HttpsServer server;
    private final HttpClient upstream = HttpClient.newHttpClient();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();

    /** Basic authentication of {@code user}. */
    public SecuredProxy(String upstreamUrl, Path keyStore, String keyStorePassword, String user, String password) {
        this(upstreamUrl, keyStore, keyStorePassword, basic(user, password), 401);
    }

    /** SigV4 signatures by {@code accessKey} for {@code service} in {@code region}. */
    public static SecuredProxy signedBy(String upstreamUrl, Path keyStore, String keyStorePassword, String accessKey,
                                        String secretKey, String region, String service) {
        SigV4Check check = new SigV4Check(accessKey, secretKey, region, service);
        return new SecuredProxy(upstreamUrl, keyStore, keyStorePassword, check::admits, 403);
    }

    private interface Check {
        boolean admits(HttpExchange exchange, byte[] body);
    }

    private static Check basic(String user, String password) {
        String expected = "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        return (exchange, body) -> expected.equals(exchange.getRequestHeaders().getFirst("Authorization"));
    }

    private SecuredProxy(String upstreamUrl, Path keyStore, String keyStorePassword, Check check, int refusal) {
        try {
            server = HttpsServer.create(new InetSocketAddress(0), 16);
            server.setHttpsConfigurator(new HttpsConfigurator(tls(keyStore, keyStorePassword)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", exchange -> {
            try (exchange) {
                byte[] body = exchange.getRequestBody().readAllBytes();
                requests.incrementAndGet();
                if (!check.admits(exchange, body)) {
                    refused.incrementAndGet();
                    if (refusal == 401) {
                        exchange.getResponseHeaders().set("WWW-Authenticate", "Basic realm=\"OpenSearch Security\"");
                    }
                    Forwarding.respond(exchange, refusal, "{\"error\":{\"type\":\"security_exception\",\"reason\":"
                            + "\"missing or wrong authentication credentials\"},\"status\":" + refusal + "}");
                    return;
                }
                Forwarding.forward(upstream, upstreamUrl, exchange, body, true);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        server.start();
    }

    private static SSLContext tls(Path keyStore, String password) {
        try (InputStream in = Files.newInputStream(keyStore)) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(in, password.toCharArray());
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(keys, password.toCharArray());
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(factory.getKeyManagers(), null, null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot load the proxy's key store " + keyStore, e);
        }
    }

    /** {@code https://HOST:PORT}: 127.0.0.1 or localhost are in the test certificate, other loopback addresses not. */
    public String url(String host) {
        return "https://" + host + ":" + server.getAddress().getPort();
    }

    /** Requests that reached the proxy over a completed TLS handshake. */
    public int requests() {
        return requests.get();
    }

    /** Of those, the ones refused for their credentials. */
    public int refused() {
        return refused.get();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
