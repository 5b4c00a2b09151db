package io.engram.jobs.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.engram.client.EngramProducer;
import io.engram.client.MalformedCorpus;
import io.engram.client.Payload;
import io.engram.client.PayloadValidator;
import io.engram.client.TestCertificates;
import io.engram.client.TopicReader;
import io.engram.client.Topics;
import io.engram.jobs.EngramJob;
import io.engram.jobs.EngramPipeline;
import io.engram.jobs.EngramSetup;
import io.engram.jobs.PipelineConfig;
import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.stack.SecuredProxy;
import io.engram.stack.ServiceOptions;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pipeline and the gateway client against secured services, configured the way an operator would, every
 * password a {@code ${file:…}} reference and one certificate authority this test makes: a Kafka that speaks only
 * SASL_SSL to them (SCRAM-SHA-512 over TLS, {@code kafka.properties.*}), OpenSearch behind TLS and basic
 * authentication ({@link SecuredProxy} in front of the real node), PostgreSQL over TLS with password
 * authentication ({@code sslmode=verify-full}). The job reads its input, writes its rejects and alerts to Kafka in
 * transactions, its records to OpenSearch and its rows to PostgreSQL, and no secret appears in a log line or in
 * the job configuration Flink's REST API shows; a wrong password fails at once and says so.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class SecuredPipelineTest {

    private static final String USER = "engram";
    private static final String PASSWORD = "scram-" + UUID.randomUUID();
    private static final String STORE_PASSWORD = "tls-" + UUID.randomUUID();
    private static final String OPENSEARCH_PASSWORD = "os-" + UUID.randomUUID();
    private static final String POSTGRES_PASSWORD = "pg-" + UUID.randomUUID();
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;
    private static EmbeddedKafka kafka;
    private static SecuredProxy openSearch;
    private static EmbeddedPostgreSql postgres;
    private static Path trustStore;
    private static Path caPem;

    @BeforeAll
    static void securedServices(EmbeddedOpenSearch node) throws Exception {
        TestCertificates certificates = TestCertificates.make("engram");
        Path keyStore = certificates.serverKeyStore(dir.resolve("server.p12"), STORE_PASSWORD);
        trustStore = certificates.trustStore(dir.resolve("clients.p12"), STORE_PASSWORD);
        caPem = certificates.caPem(dir.resolve("ca.pem"));
        certificates.serverPem(dir.resolve("server.pem"), dir.resolve("server.key"));
        kafka = EmbeddedKafka.start(ServiceOptions.ephemeral(),
                Optional.of(new EmbeddedKafka.SaslSslListener(keyStore, STORE_PASSWORD, USER, PASSWORD)));
        openSearch = new SecuredProxy(node.httpUrl(), keyStore, STORE_PASSWORD, USER, OPENSEARCH_PASSWORD);
        postgres = EmbeddedPostgreSql.start(ServiceOptions.ephemeral(), Optional.of(new EmbeddedPostgreSql.TlsLogin(
                dir.resolve("server.pem"), dir.resolve("server.key"), USER, POSTGRES_PASSWORD)));
        // as mounted secrets hold them
        Files.writeString(dir.resolve("kafka-jaas"), jaas(PASSWORD) + "\n");
        Files.writeString(dir.resolve("truststore-password"), STORE_PASSWORD + "\n");
        Files.writeString(dir.resolve("opensearch-password"), OPENSEARCH_PASSWORD + "\n");
        Files.writeString(dir.resolve("postgres-password"), POSTGRES_PASSWORD + "\n");
    }

    @AfterAll
    static void stopServices() {
        for (AutoCloseable service : new AutoCloseable[] {kafka, openSearch, postgres}) {
            if (service != null) {
                try {
                    service.close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    private static String jaas(String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + USER
                + "\" password=\"" + password + "\";";
    }

    /** What an operator writes for managed services: TLS, SCRAM, basic authentication, the secrets by reference. */
    private static Properties settings(String jaasConfig, String postgresPassword, String name) {
        Properties p = new Properties();
        p.setProperty("kafka.bootstrap", kafka.securedBootstrapServers());
        p.setProperty("kafka.properties.security.protocol", "SASL_SSL");
        p.setProperty("kafka.properties.sasl.mechanism", "SCRAM-SHA-512");
        p.setProperty("kafka.properties.sasl.jaas.config", jaasConfig);
        p.setProperty("kafka.properties.ssl.truststore.type", "PKCS12");
        p.setProperty("kafka.properties.ssl.truststore.location", trustStore.toString());
        p.setProperty("kafka.properties.ssl.truststore.password", "${file:" + dir.resolve("truststore-password") + "}");
        p.setProperty("kafka.group", name);
        p.setProperty("kafka.bounded", "true");
        p.setProperty("kafka.starting-offsets", "earliest");
        p.setProperty("kafka.transactional-id-prefix", name);
        p.setProperty("opensearch.url", openSearch.url("127.0.0.1"));
        p.setProperty("opensearch.username", USER);
        p.setProperty("opensearch.password", "${file:" + dir.resolve("opensearch-password") + "}");
        p.setProperty("opensearch.tls.ca", caPem.toString());
        p.setProperty("opensearch.index", "engram-memories-" + name);
        p.setProperty("postgres.url", postgres.jdbcUrl() + "?sslmode=verify-full&sslrootcert=" + caPem);
        p.setProperty("postgres.user", USER);
        p.setProperty("postgres.password", postgresPassword);
        p.setProperty("checkpoint.interval", "300ms");
        p.setProperty("parallelism", "1");
        return p;
    }

    @Test
    void thePipelineRunsOnSecuredServicesWithoutShowingASecret(EmbeddedOpenSearch node) throws Exception {
        Properties settings = settings("${file:" + dir.resolve("kafka-jaas") + "}",
                "${file:" + dir.resolve("postgres-password") + "}", "secured");
        int restPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            restPort = socket.getLocalPort();
        }
        settings.setProperty("flink.rest.port", String.valueOf(restPort));
        PipelineConfig config = PipelineConfig.fromProperties(settings);
        List<MalformedCorpus.Bad> bad = MalformedCorpus.generate("secured-acme", Instant.parse("2026-11-01T10:00:00Z"));
        Properties rawProducer = config.kafka().config();
        rawProducer.put("max.request.size", String.valueOf(Topics.LARGE_RECORD_BYTES)); // the corpus has oversized records
        String jobConfiguration;
        List<String> logLines;
        try (LogCapture logs = LogCapture.begin()) {
            EngramSetup.prepare(config, step -> { });
            try (EngramProducer gateway = new EngramProducer(config.kafka(), new Properties(), PayloadValidator.Limits.DEFAULT);
                 KafkaProducer<String, byte[]> raw = new KafkaProducer<>(rawProducer, new StringSerializer(),
                         new ByteArraySerializer())) {
                CollapseSimulationTest.produceCollapse(gateway);
                for (MalformedCorpus.Bad b : bad) {
                    raw.send(new ProducerRecord<>(b.topic(), b.key(), b.value())).get();
                }
                gateway.flush();
            }
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                    EngramJob.flinkConfiguration(settings, config));
            new EngramPipeline(config).build(env, EngramPipeline.kafkaSource(config), EngramPipeline.sinks(config));
            JobClient job = env.executeAsync("engram-secured");
            jobConfiguration = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    "http://127.0.0.1:" + restPort + "/jobs/" + job.getJobID() + "/config")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            job.getJobExecutionResult().get();
            logLines = logs.lines();
        }

        List<String> reasons = TopicReader.readAll(config.kafka(), Topics.REJECTS).stream()
                .map(r -> read(r.value()).path("reason_code").asText()).sorted().toList();
        assertThat(reasons).as("one reject per malformed record, with its reason")
                .containsExactlyElementsOf(bad.stream().map(b -> b.expected().code()).sorted().toList());
        List<String> alertRows = EndToEndInput.takeRows(postgres, List.of(CollapseSimulationTest.COLLAPSING))
                .get("collapse_alerts");
        assertThat(alertRows).as("the collapse simulation fires alerts").isNotEmpty();
        assertThat(TopicReader.readAll(config.kafka(), Topics.ALERTS)).as("each alert also on Kafka, committed")
                .hasSameSizeAs(alertRows);
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(node.httpUrl(), config.index(), RetryPolicy.DEFAULT)) {
            store.refresh();
            assertThat(store.find(CollapseSimulationTest.COLLAPSING, Map.of(), Set.of(), 100, null, true))
                    .as("the records went through the secured proxy").isNotEmpty();
        }
        assertThat(openSearch.requests()).isGreaterThan(openSearch.refused());

        assertThat(jobConfiguration).as("the job's configuration as Flink's REST API shows it").contains("\"jid\"");
        assertThat(logLines).as("INFO and up were captured").anyMatch(l -> l.contains("SASL_SSL"));
        for (String secret : List.of(PASSWORD, STORE_PASSWORD, OPENSEARCH_PASSWORD, POSTGRES_PASSWORD)) {
            assertThat(jobConfiguration).doesNotContain(secret);
            assertThat(logLines).noneMatch(l -> l.contains(secret));
        }
    }

    @Test
    void aWrongPasswordFailsAtOnceAndSaysSo() {
        String postgresPassword = "${file:" + dir.resolve("postgres-password") + "}";
        PipelineConfig wrongKafka = PipelineConfig.fromProperties(settings(jaas("not-the-password"), postgresPassword,
                "secured-wrong"));
        assertThatThrownBy(() -> EngramSetup.prepare(wrongKafka, step -> { }))
                .hasRootCauseInstanceOf(SaslAuthenticationException.class)
                .rootCause().hasMessageContaining("invalid credentials");
        try (EngramProducer gateway = new EngramProducer(wrongKafka.kafka(), new Properties(), PayloadValidator.Limits.DEFAULT)) {
            assertThatThrownBy(() -> gateway.send(Payload.memory("secured-acme", "m1", "memory", "Likes tea", List.of(), 0,
                    "c0", Instant.parse("2026-11-01T10:00:00Z"))).get())
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(SaslAuthenticationException.class)
                    .hasMessageContaining("invalid credentials");
        }
        PipelineConfig wrongPostgres = PipelineConfig.fromProperties(settings("${file:" + dir.resolve("kafka-jaas") + "}",
                "not-the-password", "secured-wrong"));
        assertThatThrownBy(() -> EngramSetup.prepare(wrongPostgres, step -> { }))
                .hasMessageContaining("password authentication failed for user \"" + USER + "\"");
        Properties withoutTls = settings("${file:" + dir.resolve("kafka-jaas") + "}", postgresPassword, "secured-plain");
        withoutTls.setProperty("postgres.url", postgres.jdbcUrl() + "?sslmode=disable");
        assertThatThrownBy(() -> EngramSetup.prepare(PipelineConfig.fromProperties(withoutTls), step -> { }))
                .as("the server takes this user over TLS only").hasMessageContaining("no encryption");
    }

    private static com.fasterxml.jackson.databind.JsonNode read(byte[] json) {
        try {
            return JSON.readTree(json);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
