package io.engram.store;

import io.engram.client.Secrets;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.function.BinaryOperator;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * How Engram reaches OpenSearch (docs/operations.md, "Security"): the URL, optionally a user whose password may be a
 * {@link Secrets} reference (basic authentication), and for {@code https} a certificate authority to trust beyond the
 * JVM's own (a PEM file, or a PKCS12/JKS trust store with its password) and whether the host name must match the
 * certificate (by default it must). For Amazon OpenSearch Service with IAM instead of an internal user, an AWS
 * region switches to SigV4-signed requests with the default AWS credential chain (environment, system properties,
 * web identity, instance profile). Serializable: operators receive it inside their store factory, and secrets are
 * resolved only where the client opens.
 *
 * @param username    empty for no authentication
 * @param ca          empty to trust the JVM's authorities only
 * @param caPassword  the trust store's password (not used for a PEM file)
 * @param awsRegion   empty for no signing; else the domain's region
 * @param awsService  the signing name: {@code es} for a domain, {@code aoss} for OpenSearch Serverless
 */
public record OpenSearchConnection(String url, String username, String password, String ca, String caPassword,
                                   boolean verifyHostname, String awsRegion, String awsService) implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The setting keys, with the prefix {@code opensearch.}. */
    public static final String URL = "opensearch.url";
    public static final String USERNAME = "opensearch.username";
    public static final String PASSWORD = "opensearch.password";
    public static final String CA = "opensearch.tls.ca";
    public static final String CA_PASSWORD = "opensearch.tls.ca-password";
    public static final String VERIFY_HOSTNAME = "opensearch.tls.verify-hostname";
    public static final String AWS_REGION = "opensearch.aws.region";
    public static final String AWS_SERVICE = "opensearch.aws.service";

    /** A node reached without authentication or a CA of its own (the embedded one, a local one). */
    public static OpenSearchConnection of(String url) {
        return new OpenSearchConnection(url, "", "", "", "", true, "", "es");
    }

    /** The connection the settings describe, each read as {@code setting.apply(key, default)}. */
    public static OpenSearchConnection read(BinaryOperator<String> setting) {
        return new OpenSearchConnection(setting.apply(URL, "http://127.0.0.1:9200"), setting.apply(USERNAME, ""),
                setting.apply(PASSWORD, ""), setting.apply(CA, ""), setting.apply(CA_PASSWORD, ""),
                Boolean.parseBoolean(setting.apply(VERIFY_HOSTNAME, "true").trim()), setting.apply(AWS_REGION, ""),
                setting.apply(AWS_SERVICE, "es"));
    }

    public URI uri() {
        return URI.create(url);
    }

    /** The TLS context trusting {@link #ca} (and nothing else), or null to use the JVM's default. */
    SSLContext sslContext() {
        TrustManager[] trusted = trustManagers();
        if (trusted == null) {
            return null;
        }
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trusted, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("no TLS context", e);
        }
    }

    /** Trust managers trusting {@link #ca} (and nothing else), or null to use the JVM's default. */
    TrustManager[] trustManagers() {
        if (ca.isEmpty()) {
            return null;
        }
        try {
            KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            Path file = Path.of(ca);
            if (Files.readString(file, StandardCharsets.ISO_8859_1).contains("-----BEGIN CERTIFICATE-----")) {
                trusted.load(null, null);
                try (InputStream in = Files.newInputStream(file)) {
                    int i = 0;
                    for (var certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                        trusted.setCertificateEntry("ca-" + i++, (X509Certificate) certificate);
                    }
                }
            } else {
                trusted = KeyStore.getInstance(file.toFile(), Secrets.resolve(caPassword).toCharArray());
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted);
            return trust.getTrustManagers();
        } catch (IOException e) {
            throw new UncheckedIOException(CA + ": cannot read " + ca, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(CA + ": " + ca + " is neither PEM certificates nor a trust store this "
                    + CA_PASSWORD + " opens (" + e.getMessage() + ")", e);
        }
    }

    /** The user by name only: the password is a secret. */
    @Override
    public String toString() {
        return "OpenSearchConnection[" + url + (username.isEmpty() ? "" : ", user " + username)
                + (ca.isEmpty() ? "" : ", CA " + ca) + (verifyHostname ? "" : ", host name not verified")
                + (awsRegion.isEmpty() ? "" : ", SigV4 " + awsService + " in " + awsRegion) + "]";
    }
}
