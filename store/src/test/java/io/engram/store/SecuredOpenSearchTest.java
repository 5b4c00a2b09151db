package io.engram.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.engram.client.TestCertificates;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.stack.SecuredProxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store against OpenSearch as a secured cluster shows itself: TLS with a certificate of an authority only
 * this test knows, and basic authentication (a proxy in front of the real node, as OpenSearch's security plugin
 * would answer). With the user, the password as a {@code ${file:…}} reference and the CA (PEM or a PKCS12 trust
 * store) it writes and reads; a wrong password, an untrusted certificate or a host name the certificate does not
 * name fail once, with a message that says which, and are not retried. Signed with AWS SigV4 instead (Amazon
 * OpenSearch Service with IAM), every request carries a signature the proxy recomputes from the published
 * algorithm, and a wrong secret key is refused once.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class SecuredOpenSearchTest {

    private static final String INDEX = "engram-memories-secured";
    private static final String PASSWORD = "os-" + UUID.randomUUID();
    private static final String STORE_PASSWORD = "tls-" + UUID.randomUUID();
    private static final RetryPolicy PATIENT = new RetryPolicy(5, Duration.ofMillis(10), Duration.ofMillis(50));

    @TempDir
    static Path dir;
    private static SecuredProxy proxy;
    private static Path keyStore;
    private static Path caPem;
    private static Path trustStore;
    private static String passwordReference;

    @BeforeAll
    static void securedCluster(EmbeddedOpenSearch openSearch) throws Exception {
        TestCertificates certificates = TestCertificates.make("opensearch");
        caPem = certificates.caPem(dir.resolve("ca.pem"));
        trustStore = certificates.trustStore(dir.resolve("ca.p12"), STORE_PASSWORD);
        keyStore = certificates.serverKeyStore(dir.resolve("node.p12"), STORE_PASSWORD);
        proxy = new SecuredProxy(openSearch.httpUrl(), keyStore, STORE_PASSWORD, "engram", PASSWORD);
        passwordReference = "${file:" + Files.writeString(dir.resolve("password"), PASSWORD + "\n") + "}";
    }

    @AfterAll
    static void stop() {
        if (proxy != null) {
            proxy.close();
        }
    }

    /** Basic authentication as engram, trusting the test's CA (PEM). */
    private static OpenSearchConnection basic(String url, String password, boolean verifyHostname) {
        return new OpenSearchConnection(url, "engram", password, caPem.toString(), "", verifyHostname, "", "es");
    }

    private static MemoryRecord memory(String id, String text) {
        return Records.memory("secured", id, text, new float[] {1, 0, 0});
    }

    @Test
    void withTheUserAndTheAuthorityItWritesAndReads() {
        OpenSearchConnection pem = basic(proxy.url("127.0.0.1"), passwordReference, true);
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(pem, INDEX, RetryPolicy.DEFAULT)) {
            store.ensureIndex("test-vectors", 3); // the three-dimensional vectors of Records
            store.upsert(List.of(memory("m1", "The invoices are due on the fifth")));
            store.refresh();
            assertThat(store.get("secured", "m1")).map(MemoryRecord::text).hasValue("The invoices are due on the fifth");
        }
        OpenSearchConnection trustStoreCa = new OpenSearchConnection(proxy.url("localhost"), "engram", passwordReference,
                trustStore.toString(), STORE_PASSWORD, true, "", "es");
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(trustStoreCa, INDEX, RetryPolicy.DEFAULT)) {
            assertThat(store.get("secured", "m1")).isPresent();
        }
        assertThat(pem.toString()).doesNotContain(PASSWORD);
    }

    @Test
    void aWrongPasswordFailsOnceAndSaysSo() {
        OpenSearchConnection wrong = basic(proxy.url("127.0.0.1"), "not-the-password", true);
        int before = proxy.requests();
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(wrong, INDEX, PATIENT)) {
            assertThatThrownBy(() -> store.upsert(List.of(memory("m2", "never written"))))
                    .isInstanceOf(StoreWriteException.class)
                    .hasMessageContaining("HTTP 401").hasMessageContaining("opensearch.username and opensearch.password");
        }
        // the client's own challenge and answer, once: five attempts would have been ten requests
        assertThat(proxy.requests() - before).isBetween(1, 2);
    }

    @Test
    void anUntrustedCertificateFailsOnceAndSaysSo() {
        OpenSearchConnection untrusted = new OpenSearchConnection(proxy.url("127.0.0.1"), "engram", passwordReference,
                "", "", true, "", "es");
        int before = proxy.requests();
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(untrusted, INDEX, PATIENT)) {
            assertThatThrownBy(() -> store.upsert(List.of(memory("m3", "never written"))))
                    .isInstanceOf(StoreWriteException.class)
                    .hasMessageContaining("TLS handshake failed").hasMessageContaining("opensearch.tls.ca");
        }
        assertThat(proxy.requests()).as("no request got through the handshake").isEqualTo(before);
    }

    @Test
    void theHostNameIsVerifiedUnlessSwitchedOff() {
        withTheUserAndTheAuthorityItWritesAndReads(); // the index exists
        String elsewhere = proxy.url("127.0.0.2"); // the proxy answers there, but the certificate names 127.0.0.1
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(basic(elsewhere, passwordReference, true), INDEX, PATIENT)) {
            assertThatThrownBy(() -> store.upsert(List.of(memory("m4", "never written"))))
                    .isInstanceOf(StoreWriteException.class).hasMessageContaining("TLS handshake failed");
        }
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(basic(elsewhere, passwordReference, false), INDEX, PATIENT)) {
            store.upsert(List.of(memory("m4", "written once the host name is not checked")));
        }
    }

    @Test
    void signedWithSigV4ItWritesAndReadsAndAnotherKeyIsRefused(EmbeddedOpenSearch openSearch) {
        String accessKey = "AKIAENGRAMTEST";
        String secretKey = "aws-" + UUID.randomUUID();
        try (SecuredProxy aws = SecuredProxy.signedBy(openSearch.httpUrl(), keyStore, STORE_PASSWORD, accessKey, secretKey,
                "eu-west-1", "es")) {
            OpenSearchConnection signed = new OpenSearchConnection(aws.url("localhost"), "", "", caPem.toString(), "",
                    true, "eu-west-1", "es");
            assertThat(signed.toString()).contains("SigV4 es in eu-west-1");
            // the default AWS credential chain reads these system properties (as it reads the environment)
            System.setProperty("aws.accessKeyId", accessKey);
            System.setProperty("aws.secretAccessKey", secretKey);
            try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(signed, "engram-memories-signed", PATIENT)) {
                store.ensureIndex("test-vectors", 3);
                store.upsert(List.of(memory("m5", "Signed requests reach the domain")));
                store.refresh();
                assertThat(store.get("secured", "m5")).map(MemoryRecord::text).hasValue("Signed requests reach the domain");
            }
            assertThat(aws.refused()).as("every request carried a valid signature").isZero();
            assertThat(aws.requests()).isGreaterThan(3);

            System.setProperty("aws.secretAccessKey", "not-the-secret");
            int before = aws.requests();
            try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(signed, "engram-memories-signed", PATIENT)) {
                assertThatThrownBy(() -> store.upsert(List.of(memory("m6", "never written"))))
                        .isInstanceOf(StoreWriteException.class).hasMessageContaining("HTTP 403")
                        .hasMessageContaining("the AWS credentials");
            }
            assertThat(aws.requests() - before).as("refused once, not retried").isEqualTo(1);
        } finally {
            System.clearProperty("aws.accessKeyId");
            System.clearProperty("aws.secretAccessKey");
        }
    }
}
