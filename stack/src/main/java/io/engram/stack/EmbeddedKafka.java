package io.engram.stack;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

/** A real Kafka broker in KRaft mode (combined broker and controller) on 127.0.0.1. */
public final class EmbeddedKafka implements AutoCloseable {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final KafkaRaftServer server;
    private final Path dataDir;
    private final boolean temporary;
    private final int port;
    private final int securedPort;

    private EmbeddedKafka(KafkaRaftServer server, Path dataDir, boolean temporary, int port, int securedPort) {
        this.server = server;
        this.dataDir = dataDir;
        this.temporary = temporary;
        this.port = port;
        this.securedPort = securedPort;
    }

    /**
     * A second listener that speaks SASL_SSL with SCRAM-SHA-512, as a managed Kafka does: its TLS key store
     * (PKCS12) and the one user the broker knows.
     */
    public record SaslSslListener(Path keyStore, String keyStorePassword, String user, String password) {
    }

    /** Formats storage when the directory is new, starts the broker and returns once the admin client answers. */
    public static EmbeddedKafka start(ServiceOptions options) {
        return start(options, Optional.empty());
    }

    /** The same with a SASL_SSL listener beside the plain one ({@link #securedBootstrapServers()}). */
    public static EmbeddedKafka start(ServiceOptions options, Optional<SaslSslListener> secured) {
        int port = options.resolvePort();
        int controllerPort = ServiceOptions.freePort();
        int securedPort = secured.isPresent() ? ServiceOptions.freePort() : -1;
        Path dataDir = options.resolveDataDir("engram-kafka");
        Path logDir = dataDir.resolve("log");
        Properties props = brokerProperties(port, controllerPort, logDir);
        secured.ifPresent(listener -> addSaslSsl(props, securedPort, listener));
        if (!Files.exists(logDir.resolve("meta.properties"))) {
            format(props, dataDir, secured);
        }
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
        server.startup();
        EmbeddedKafka kafka = new EmbeddedKafka(server, dataDir, options.temporary(), port, securedPort);
        try {
            kafka.awaitReady();
        } catch (RuntimeException e) {
            kafka.close();
            throw e;
        }
        return kafka;
    }

    static Properties brokerProperties(int port, int controllerPort, Path logDir) {
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("log.dirs", logDir.toAbsolutePath().toString());
        p.put("num.partitions", "1");
        p.put("default.replication.factor", "1");
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        // The default dedupe buffer takes 128 MiB of heap; this broker is small.
        p.put("log.cleaner.dedupe.buffer.size", "4194304");
        p.put("auto.create.topics.enable", "false");
        return p;
    }

    private static void addSaslSsl(Properties p, int securedPort, SaslSslListener listener) {
        String address = "SASL_SSL://127.0.0.1:" + securedPort;
        p.put("listeners", p.getProperty("listeners") + "," + address);
        p.put("advertised.listeners", p.getProperty("advertised.listeners") + "," + address);
        p.put("listener.security.protocol.map", p.getProperty("listener.security.protocol.map") + ",SASL_SSL:SASL_SSL");
        p.put("sasl.enabled.mechanisms", "SCRAM-SHA-512");
        p.put("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required;");
        p.put("listener.name.sasl_ssl.ssl.keystore.type", "PKCS12");
        p.put("listener.name.sasl_ssl.ssl.keystore.location", listener.keyStore().toAbsolutePath().toString());
        p.put("listener.name.sasl_ssl.ssl.keystore.password", listener.keyStorePassword());
    }

    private static void format(Properties props, Path dataDir, Optional<SaslSslListener> secured) {
        Path config = dataDir.resolve("server.properties");
        try (Writer w = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
            props.store(w, "engram embedded kafka");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        String clusterId = Uuid.randomUuid().toString();
        List<String> args = new ArrayList<>(List.of("format", "-t", clusterId, "-c", config.toString()));
        // KRaft keeps SCRAM credentials in its metadata log: the user exists from the first start
        secured.ifPresent(l -> args.addAll(List.of("--add-scram",
                "SCRAM-SHA-512=[name=" + l.user() + ",password=" + l.password() + "]")));
        int rc = StorageTool.execute(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8));
        if (rc != 0) {
            throw new IllegalStateException("kafka storage format failed (" + rc + "): " + out.toString(StandardCharsets.UTF_8));
        }
    }

    private void awaitReady() {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()))) {
            admin.describeCluster().nodes().get(READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("kafka did not become ready on " + bootstrapServers(), e);
        }
    }

    /** {@code 127.0.0.1:PORT}. */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /** {@code 127.0.0.1:PORT} of the SASL_SSL listener. */
    public String securedBootstrapServers() {
        if (securedPort < 0) {
            throw new IllegalStateException("this broker has no SASL_SSL listener");
        }
        return "127.0.0.1:" + securedPort;
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
        if (temporary) {
            Directories.deleteQuietly(dataDir);
        }
    }
}
