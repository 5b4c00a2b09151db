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
import io.engram.stack.ServiceOptions;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
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
 * The pipeline and the gateway client against a Kafka that speaks only SASL_SSL to them (SCRAM-SHA-512 over TLS,
 * a certificate authority this test makes), configured the way an operator would: {@code kafka.properties.*}
 * with the password and the trust store's password as {@code ${file:…}} references. The job reads its input,
 * writes its rejects and alerts in transactions, and no secret appears in a log line or in the job configuration
 * Flink's REST API shows; a wrong password fails at once and says so.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class SecuredKafkaPipelineTest {

    private static final String USER = "engram";
    private static final String PASSWORD = "scram-" + UUID.randomUUID();
    private static final String STORE_PASSWORD = "tls-" + UUID.randomUUID();
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;
    private static EmbeddedKafka kafka;
    private static Path trustStore;

    @BeforeAll
    static void securedBroker() throws Exception {
        TestCertificates certificates = TestCertificates.make("kafka");
        Path keyStore = certificates.serverKeyStore(dir.resolve("broker.p12"), STORE_PASSWORD);
        trustStore = certificates.trustStore(dir.resolve("clients.p12"), STORE_PASSWORD);
        kafka = EmbeddedKafka.start(ServiceOptions.ephemeral(),
                Optional.of(new EmbeddedKafka.SaslSslListener(keyStore, STORE_PASSWORD, USER, PASSWORD)));
        Files.writeString(dir.resolve("kafka-jaas"), jaas(PASSWORD) + "\n"); // as a mounted secret holds it
        Files.writeString(dir.resolve("truststore-password"), STORE_PASSWORD + "\n");
    }

    @AfterAll
    static void stopBroker() {
        if (kafka != null) {
            kafka.close();
        }
    }

    private static String jaas(String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + USER
                + "\" password=\"" + password + "\";";
    }

    /** What an operator writes for a managed Kafka: its TLS listener, SCRAM, and the secrets by reference. */
    private static Properties settings(String jaasConfig, String name, EmbeddedOpenSearch openSearch,
                                       EmbeddedPostgreSql postgres) {
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
        p.setProperty("opensearch.url", openSearch.httpUrl());
        p.setProperty("opensearch.index", "engram-memories-" + name);
        p.setProperty("postgres.url", postgres.jdbcUrl());
        p.setProperty("postgres.user", EmbeddedPostgreSql.USER);
        p.setProperty("checkpoint.interval", "300ms");
        p.setProperty("parallelism", "1");
        return p;
    }

    @Test
    void thePipelineReadsAndWritesItsTopicsThroughSaslSslWithoutShowingASecret(EmbeddedOpenSearch openSearch,
                                                                              EmbeddedPostgreSql postgres) throws Exception {
        Properties settings = settings("${file:" + dir.resolve("kafka-jaas") + "}", "secured", openSearch, postgres);
        int restPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            restPort = socket.getLocalPort();
        }
        settings.setProperty("flink.rest.port", String.valueOf(restPort));
        PipelineConfig config = PipelineConfig.fromProperties(settings);
        EndToEndInput.takeRows(postgres, List.of(CollapseSimulationTest.COLLAPSING)); // another class's rows
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

        assertThat(jobConfiguration).as("the job's configuration as Flink's REST API shows it").contains("\"jid\"");
        assertThat(logLines).as("INFO and up were captured").anyMatch(l -> l.contains("SASL_SSL"));
        for (String secret : List.of(PASSWORD, STORE_PASSWORD)) {
            assertThat(jobConfiguration).doesNotContain(secret);
            assertThat(logLines).noneMatch(l -> l.contains(secret));
        }
    }

    @Test
    void aWrongPasswordFailsAtOnceAndSaysSo(EmbeddedOpenSearch openSearch, EmbeddedPostgreSql postgres) {
        PipelineConfig config = PipelineConfig.fromProperties(settings(jaas("not-the-password"), "secured-wrong",
                openSearch, postgres));
        assertThatThrownBy(() -> EngramSetup.prepare(config, step -> { }))
                .hasRootCauseInstanceOf(SaslAuthenticationException.class)
                .rootCause().hasMessageContaining("invalid credentials");
        try (EngramProducer gateway = new EngramProducer(config.kafka(), new Properties(), PayloadValidator.Limits.DEFAULT)) {
            assertThatThrownBy(() -> gateway.send(Payload.memory("secured-acme", "m1", "memory", "Likes tea", List.of(), 0,
                    "c0", Instant.parse("2026-11-01T10:00:00Z"))).get())
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(SaslAuthenticationException.class)
                    .hasMessageContaining("invalid credentials");
        }
    }

    private static com.fasterxml.jackson.databind.JsonNode read(byte[] json) {
        try {
            return JSON.readTree(json);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
