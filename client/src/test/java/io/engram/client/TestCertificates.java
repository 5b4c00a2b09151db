package io.engram.client;

import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A certificate authority made by a test, and a server certificate it signs for 127.0.0.1 and localhost: what a
 * TLS listener needs (a PKCS12 key store) and what its clients trust (a PKCS12 trust store, or the CA as PEM).
 * Nothing is committed: every run makes new keys.
 */
public final class TestCertificates {

    private final X509Certificate ca;
    private final KeyPair serverKeys;
    private final X509Certificate server;

    private TestCertificates(X509Certificate ca, KeyPair serverKeys, X509Certificate server) {
        this.ca = ca;
        this.serverKeys = serverKeys;
        this.server = server;
    }

    /** A new CA named {@code name} and a server certificate it signed. */
    public static TestCertificates make(String name) throws Exception {
        KeyPair caKeys = keys();
        X509Certificate ca = sign(new X500Name("CN=" + name + " test CA"), caKeys, new X500Name("CN=" + name + " test CA"),
                caKeys, true);
        KeyPair serverKeys = keys();
        X509Certificate server = sign(new X500Name("CN=127.0.0.1"), serverKeys, new X500Name("CN=" + name + " test CA"),
                caKeys, false);
        return new TestCertificates(ca, serverKeys, server);
    }

    /** The server's key and certificate chain, as a PKCS12 key store at {@code file}. */
    public Path serverKeyStore(Path file, String password) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("server", serverKeys.getPrivate(), password.toCharArray(), new X509Certificate[] {server, ca});
        return write(store, file, password);
    }

    /** The CA alone, as a PKCS12 trust store at {@code file}: what a client trusts. */
    public Path trustStore(Path file, String password) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setCertificateEntry("ca", ca);
        return write(store, file, password);
    }

    /** The CA alone as a PEM file at {@code file}. */
    public Path caPem(Path file) throws Exception {
        return Files.writeString(file, pem("CERTIFICATE", ca.getEncoded()));
    }

    /** The server's certificate chain as PEM at {@code chain}, its key (PKCS#8 PEM, owner-only) at {@code key}. */
    public void serverPem(Path chain, Path key) throws Exception {
        Files.writeString(chain, pem("CERTIFICATE", server.getEncoded()) + pem("CERTIFICATE", ca.getEncoded()));
        Files.writeString(key, pem("PRIVATE KEY", serverKeys.getPrivate().getEncoded()));
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------")); // PostgreSQL insists
    }

    private static String pem(String type, byte[] der) {
        String base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + base64 + "\n-----END " + type + "-----\n";
    }

    private static Path write(KeyStore store, Path file, String password) throws Exception {
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, password.toCharArray());
        }
        return file;
    }

    private static KeyPair keys() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        return generator.generateKeyPair();
    }

    private static X509Certificate sign(X500Name subject, KeyPair subjectKeys, X500Name issuer, KeyPair issuerKeys,
                                        boolean authority) throws Exception {
        Instant now = Instant.now();
        JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(now.toEpochMilli()),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(2))), subject,
                subjectKeys.getPublic());
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(authority));
        if (!authority) {
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                    new GeneralName(GeneralName.iPAddress, "127.0.0.1"), new GeneralName(GeneralName.dNSName, "localhost")}));
        }
        return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withRSA").build(issuerKeys.getPrivate())));
    }
}
