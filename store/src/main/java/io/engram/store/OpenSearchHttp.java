package io.engram.store;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.engram.client.Secrets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import org.apache.hc.client5.http.auth.AuthScope;
import org.apache.hc.client5.http.auth.UsernamePasswordCredentials;
import org.apache.hc.client5.http.impl.auth.BasicCredentialsProvider;
import org.apache.hc.client5.http.impl.async.HttpAsyncClientBuilder;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.client5.http.ssl.ClientTlsStrategyBuilder;
import org.apache.hc.client5.http.ssl.DefaultHostnameVerifier;
import org.apache.hc.client5.http.ssl.HostnameVerificationPolicy;
import org.apache.hc.client5.http.ssl.NoopHostnameVerifier;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.ssl.SSLContexts;
import org.opensearch.client.json.jackson.JacksonJsonpMapper;
import org.opensearch.client.opensearch.OpenSearchClient;
import org.opensearch.client.opensearch.generic.Requests;
import org.opensearch.client.transport.OpenSearchTransport;
import org.opensearch.client.transport.aws.AwsSdk2Transport;
import org.opensearch.client.transport.aws.AwsSdk2TransportOptions;
import org.opensearch.client.transport.httpclient5.ApacheHttpClient5TransportBuilder;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

/**
 * The transport to one OpenSearch cluster, as an {@link OpenSearchConnection} describes it: plain HTTP(S) with basic
 * authentication and the connection's TLS settings, or HTTPS signed by AWS SigV4. Carries the typed client (bulk,
 * index admin) and {@link #send} for the requests sent as JSON text (searches, delete-by-query, mappings).
 */
final class OpenSearchHttp implements AutoCloseable {

    private final OpenSearchClient client;
    /** What a refused login is to be checked against, for the error message. */
    private final String credentials;

    OpenSearchHttp(OpenSearchConnection connection) {
        JacksonJsonpMapper mapper = new JacksonJsonpMapper(VectorJson.MAPPER.copy()
                // what the client's default mapper sets, on the fast float reader and writer
                .setSerializationInclusion(JsonInclude.Include.NON_NULL).findAndRegisterModules());
        boolean signed = !connection.awsRegion().isEmpty();
        this.client = new OpenSearchClient(signed ? signingTransport(connection, mapper) : httpTransport(connection, mapper));
        this.credentials = signed ? "the AWS credentials and the domain's access policy"
                : "opensearch.username and opensearch.password";
    }

    OpenSearchClient client() {
        return client;
    }

    /** What to check when the cluster refuses the login (401, 403). */
    String credentials() {
        return credentials;
    }

    /** Sends a request with a JSON body (or none) and returns the answer's body; another status than expected throws. */
    String send(String method, String path, String jsonBody, int expected) {
        Requests.JsonBodyBuilder request = Requests.builder().method(method).endpoint(path);
        if (jsonBody != null) {
            request.json(jsonBody);
        }
        try (var response = client.generic().execute(request.build())) {
            String body = response.getBody().map(b -> b.bodyAsString()).orElse("");
            if (response.getStatus() != expected) {
                throw new IllegalStateException(method + " " + path + " answered " + response.getStatus() + ": " + body);
            }
            return body;
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + " failed", e);
        }
    }

    /** Plain HTTP(S), with basic authentication and the connection's TLS settings when it has them. */
    private static OpenSearchTransport httpTransport(OpenSearchConnection connection, JacksonJsonpMapper mapper) {
        URI uri = connection.uri();
        HttpHost host = new HttpHost(uri.getScheme(), uri.getHost(), uri.getPort());
        ApacheHttpClient5TransportBuilder transport = ApacheHttpClient5TransportBuilder.builder(host).setMapper(mapper);
        SSLContext tls = connection.sslContext();
        if (!connection.username().isEmpty() || tls != null || !connection.verifyHostname()) {
            transport.setHttpClientConfigCallback(http -> secured(http, host, connection, tls));
        }
        return transport.build();
    }

    private static HttpAsyncClientBuilder secured(HttpAsyncClientBuilder http, HttpHost host,
                                                  OpenSearchConnection connection, SSLContext tls) {
        if (!connection.username().isEmpty()) {
            BasicCredentialsProvider credentials = new BasicCredentialsProvider();
            credentials.setCredentials(new AuthScope(host), new UsernamePasswordCredentials(connection.username(),
                    Secrets.resolve(connection.password()).toCharArray()));
            http.setDefaultCredentialsProvider(credentials);
        }
        ClientTlsStrategyBuilder strategy = ClientTlsStrategyBuilder.create()
                .setSslContext(tls != null ? tls : SSLContexts.createSystemDefault())
                // checked here, by the client's verifier: the built-in check let a foreign IP address pass
                .setHostVerificationPolicy(HostnameVerificationPolicy.CLIENT)
                .setHostnameVerifier(connection.verifyHostname() ? new DefaultHostnameVerifier()
                        : NoopHostnameVerifier.INSTANCE);
        return http.setConnectionManager(PoolingAsyncClientConnectionManagerBuilder.create()
                .setTlsStrategy(strategy.build()).build());
    }

    /**
     * HTTPS with every request signed by AWS SigV4 (Amazon OpenSearch Service with IAM), the credentials from the
     * default AWS chain, over the JDK's HTTP client. Host names are always verified.
     */
    private static OpenSearchTransport signingTransport(OpenSearchConnection connection, JacksonJsonpMapper mapper) {
        URI uri = connection.uri();
        if (!"https".equals(uri.getScheme())) {
            throw new IllegalArgumentException(OpenSearchConnection.AWS_REGION + " signs requests to an https URL, not "
                    + connection.url());
        }
        UrlConnectionHttpClient.Builder http = UrlConnectionHttpClient.builder();
        TrustManager[] trusted = connection.trustManagers();
        if (trusted != null) {
            http.tlsTrustManagersProvider(() -> trusted);
        }
        return new AwsSdk2Transport(http.build(), uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort()),
                connection.awsService(), Region.of(connection.awsRegion()), AwsSdk2TransportOptions.builder()
                .setMapper(mapper).setCredentials(DefaultCredentialsProvider.builder().build()).build());
    }

    @Override
    public void close() {
        try {
            client._transport().close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
