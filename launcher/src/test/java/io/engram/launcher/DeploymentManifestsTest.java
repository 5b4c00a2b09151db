package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.engram.client.Topics;
import io.engram.jobs.EngramJob;
import io.engram.jobs.EngramSetup;
import io.engram.jobs.PipelineConfig;
import io.engram.service.Route;
import io.engram.service.Routes;
import io.engram.service.ServiceConfig;
import io.engram.service.ServiceMain;
import io.engram.store.MemoryIndexTemplate;
import java.io.Reader;
import java.io.StringReader;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.zip.ZipEntry;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.FallbackKey;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.kafka.common.utils.AppInfoParser;
import org.junit.jupiter.api.Test;

/**
 * docker/ and deploy/ cannot run here (no Docker engine, no Kubernetes), so they are held to what is tested:
 * the same jar, entry classes, settings keys, Flink options, topics, index and tables as the code and the
 * standalone-cluster tests use.
 */
class DeploymentManifestsTest {

    private static final Path ROOT = ClusterCommand.root();
    private static final ObjectMapper YAML = new YAMLMapper();
    private static final String VERSION = System.getProperty("engram.version");
    private static final String IMAGE = "engram-job:" + VERSION;
    private static final String SERVICE_IMAGE = "engram-service:" + VERSION;
    private static final String USRLIB_JAR = "/opt/flink/usrlib/engram-jobs.jar";

    @Test
    void theImagePackagesTheBuiltJobJarAndItsNativeLibrariesOnTheMatchingFlinkImage() throws Exception {
        List<String> lines = Files.readAllLines(ROOT.resolve("docker/Dockerfile")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        assertThat(lines.get(0)).isEqualTo("FROM flink:" + EnvironmentInformation.getVersion() + "-scala_2.12-java17");
        assertThat(lines).contains("ARG ENGRAM_VERSION=" + VERSION);
        String jarCopy = lines.stream().filter(l -> l.startsWith("COPY jobs/target/engram-jobs-")).findFirst().orElseThrow();
        String[] jar = jarCopy.replace("${ENGRAM_VERSION}", VERSION).split("\\s+");
        assertThat(ROOT.resolve(jar[1]).normalize()).isEqualTo(Path.of(System.getProperty("engram.job.jar")).normalize());
        assertThat(jar[2]).isEqualTo(USRLIB_JAR);
        assertThat(lines).contains("COPY jobs/target/native-lib/ /opt/flink/lib/");
        assertThat(ROOT.resolve("jobs/target/native-lib")).isDirectoryContaining("glob:**/onnxruntime-*.jar");
    }

    @Test
    void composeRunsTheJobAndTheSetupFromTheImageAgainstItsOwnServices() throws Exception {
        // SnakeYAML resolves the compose file's anchors and aliases (Jackson's YAML reader does not)
        JsonNode compose = YAML.valueToTree(new org.yaml.snakeyaml.Yaml().load(Files.readString(ROOT.resolve("docker/compose.yaml"))));
        JsonNode services = compose.path("services");
        assertThat(names(services)).containsExactlyInAnyOrder("certs", "kafka", "opensearch", "postgres", "setup",
                "jobmanager", "taskmanager", "service", "prometheus", "grafana");
        assertThat(services.at("/kafka/image").asText()).isEqualTo("apache/kafka:" + AppInfoParser.getVersion());
        assertThat(services.at("/opensearch/image").asText()).isEqualTo("opensearchproject/opensearch:"
                + org.opensearch.Version.CURRENT);
        for (String flink : List.of("setup", "jobmanager", "taskmanager")) {
            assertThat(services.path(flink).path("image").asText()).as(flink).isEqualTo(IMAGE);
        }
        assertThat(services.at("/setup/build/dockerfile").asText()).isEqualTo("docker/Dockerfile");
        assertThat(ROOT.resolve("docker").resolve(services.at("/setup/build/context").asText()).normalize())
                .isEqualTo(ROOT.normalize());

        List<String> jobManager = strings(services.at("/jobmanager/command"));
        assertThat(jobManager.get(0)).isEqualTo("standalone-job");
        assertThat(jobManager.get(jobManager.indexOf("--job-classname") + 1)).isEqualTo(EngramJob.class.getName());
        assertThat(strings(services.at("/taskmanager/command"))).containsExactly("taskmanager");

        // the setup and the job read the same mounted settings file, which must be valid and name compose's services
        String mounted = "/opt/engram/engram.properties";
        List<String> setup = strings(services.at("/setup/command"));
        assertThat(setup).contains(USRLIB_JAR + ":/opt/flink/lib/*", EngramSetup.class.getName());
        assertThat(setup.get(setup.indexOf("--config") + 1)).isEqualTo(mounted);
        for (String service : List.of("setup", "jobmanager", "taskmanager")) {
            assertThat(strings(services.path(service).path("volumes"))).as(service)
                    .contains("./engram.properties:" + mounted + ":ro");
        }
        JsonNode flinkEnvironment = services.at("/jobmanager/environment");
        assertThat(flinkEnvironment.path("ENGRAM_CONFIG").asText()).isEqualTo(mounted);
        Map<String, String> flinkSettings = flinkProperties(flinkEnvironment.path("FLINK_PROPERTIES").asText());
        assertRealFlinkOptions(flinkSettings);
        assertThat(flinkSettings).containsEntry("state.backend.type", "rocksdb")
                .containsEntry("jobmanager.rpc.address", "jobmanager");

        Properties composeSettings = properties(ROOT.resolve("docker/engram.properties"));
        PipelineConfig config = PipelineConfig.fromProperties(composeSettings);
        assertThat(config.kafkaBootstrap()).isEqualTo("kafka:9092");
        assertThat(URI.create(config.openSearch().url()).getHost()).isEqualTo("opensearch");
        assertThat(config.postgresUrl()).isEqualTo("jdbc:postgresql://postgres:5432/"
                + services.at("/postgres/environment/POSTGRES_DB").asText());
        assertThat(config.postgresUser()).isEqualTo(services.at("/postgres/environment/POSTGRES_USER").asText());
        assertThat(config.index()).isEqualTo(MemoryIndexTemplate.INDEX);

        // secured as the images allow: Kafka over SASL_SSL, OpenSearch's security plugin, PostgreSQL's password,
        // every secret from the caller's environment (never in the files here)
        assertSecretsByReference(composeSettings);
        JsonNode kafka = services.at("/kafka/environment");
        assertThat(kafka.path("KAFKA_ADVERTISED_LISTENERS").asText()).isEqualTo("SASL_SSL://" + config.kafkaBootstrap());
        assertThat(config.kafka().properties()).containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", kafka.path("KAFKA_SASL_ENABLED_MECHANISMS").asText());
        assertThat(kafka.path("KAFKA_SSL_KEYSTORE_PASSWORD").asText()).startsWith("${KAFKA_PASSWORD:?");
        JsonNode openSearch = services.at("/opensearch/environment");
        assertThat(openSearch.has("DISABLE_SECURITY_PLUGIN")).isFalse();
        assertThat(openSearch.path("OPENSEARCH_INITIAL_ADMIN_PASSWORD").asText()).startsWith("${OPENSEARCH_PASSWORD:?");
        assertThat(config.openSearch().url()).startsWith("https://");
        assertThat(config.openSearch().username()).isEqualTo("admin");
        assertThat(services.at("/postgres/environment/POSTGRES_PASSWORD").asText()).startsWith("${POSTGRES_PASSWORD:?");
        assertThat(config.postgresPassword()).isEqualTo("${env:POSTGRES_PASSWORD}");
        for (String engram : List.of("setup", "jobmanager", "taskmanager", "service")) {
            JsonNode environment = services.path(engram).path("environment");
            for (String variable : references(composeSettings, "env")) {
                assertThat(environment.path(variable).asText()).as("%s's %s", engram, variable).contains("${");
            }
            List<String> targets = strings(services.path(engram).path("volumes")).stream()
                    .map(v -> v.split(":")[1]).toList();
            for (String file : settingFiles(composeSettings)) {
                assertThat(targets).as("%s mounts %s", engram, file).anyMatch(m -> file.startsWith(m + "/"));
            }
        }

        // the memory service: its own image, the same settings file, the keys from the caller's environment
        JsonNode service = services.path("service");
        assertThat(service.path("image").asText()).isEqualTo(SERVICE_IMAGE);
        assertThat(service.at("/build/dockerfile").asText()).isEqualTo("docker/Dockerfile.service");
        assertThat(strings(service.path("volumes"))).contains("./engram.properties:" + mounted + ":ro");
        assertThat(service.at("/environment/ENGRAM_API_KEYS").asText()).startsWith("${ENGRAM_API_KEYS:?");
        Map<String, String> environment = new HashMap<>();
        service.path("environment").properties().forEach(e -> environment.put(e.getKey(), e.getValue().asText()));
        ServiceConfig serviceConfig = ServiceConfig.from(composeSettings, environment);
        assertThat(serviceConfig.kafka()).isEqualTo(config.kafka());
        assertThat(serviceConfig.openSearch()).isEqualTo(config.openSearch());
        assertThat(serviceConfig.postgresPassword()).isEqualTo(config.postgresPassword());
        assertThat(strings(service.path("ports"))).containsExactly(serviceConfig.port() + ":" + serviceConfig.port());
        assertThat(service.at("/depends_on/setup/condition").asText()).isEqualTo("service_completed_successfully");
    }

    /** Prometheus scrapes every Flink process's reporter and the service; Grafana loads the repository's dashboard. */
    @Test
    void composeMonitorsTheJobAndTheServiceWithTheDashboard() throws Exception {
        JsonNode compose = YAML.valueToTree(new org.yaml.snakeyaml.Yaml().load(Files.readString(ROOT.resolve("docker/compose.yaml"))));
        JsonNode services = compose.path("services");
        Map<String, String> flink = flinkProperties(services.at("/jobmanager/environment/FLINK_PROPERTIES").asText());
        JsonNode prometheus = YAML.readTree(ROOT.resolve("docker/prometheus.yml").toFile());
        assertThat(strings(services.at("/prometheus/volumes"))).contains("./prometheus.yml:/etc/prometheus/prometheus.yml:ro");
        JsonNode flinkTargets = prometheus.at("/scrape_configs/0/dns_sd_configs/0");
        assertThat(strings(flinkTargets.path("names"))).containsExactlyInAnyOrder("jobmanager", "taskmanager");
        assertThat(flinkTargets.path("port").asText()).isEqualTo(flink.get("metrics.reporter.prom.port"));
        assertThat(strings(prometheus.at("/scrape_configs/1/static_configs/0/targets"))).containsExactly(
                "service:" + strings(services.at("/service/ports")).get(0).split(":")[1]);
        assertThat(prometheus.at("/scrape_configs/1/metrics_path").asText()).isEqualTo("/metrics");

        List<String> grafanaVolumes = strings(services.at("/grafana/volumes"));
        assertThat(grafanaVolumes).contains("./grafana:/etc/grafana/provisioning:ro",
                "../deploy/grafana:/var/lib/grafana/dashboards/engram:ro");
        JsonNode provider = YAML.readTree(ROOT.resolve("docker/grafana/dashboards/engram.yaml").toFile());
        assertThat(provider.at("/providers/0/options/path").asText()).isEqualTo("/var/lib/grafana/dashboards/engram");
        JsonNode source = YAML.readTree(ROOT.resolve("docker/grafana/datasources/prometheus.yaml").toFile());
        assertThat(source.at("/datasources/0/url").asText()).isEqualTo("http://prometheus:"
                + strings(services.at("/prometheus/ports")).get(0).split(":")[1]);
        assertThat(services.at("/grafana/environment/GF_SECURITY_ADMIN_PASSWORD").asText()).startsWith("${GRAFANA_PASSWORD:?");
    }

    @Test
    void theServiceImageRunsTheServiceFromItsJarAndLibrariesWithoutFlink() throws Exception {
        List<String> lines = Files.readAllLines(ROOT.resolve("docker/Dockerfile.service")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        assertThat(lines.get(0)).isEqualTo("FROM eclipse-temurin:17-jre");
        assertThat(lines).contains("ARG ENGRAM_VERSION=" + VERSION, "COPY service/target/lib/ /opt/engram/lib/",
                "COPY service/target/engram-service-${ENGRAM_VERSION}.jar /opt/engram/lib/");
        assertThat(ROOT.resolve("service/target/engram-service-" + VERSION + ".jar")).exists();
        String entry = String.join(" ", lines.subList(lines.indexOf(lines.stream().filter(l -> l.startsWith("ENTRYPOINT"))
                .findFirst().orElseThrow()), lines.size()));
        assertThat(entry).contains("\"" + ServiceMain.class.getName() + "\"", "\"--config\", \"/opt/engram/engram.properties\"",
                "-Dlog4j2.configurationFile=/opt/engram/log4j2.properties");
        assertThat(lines).contains("COPY docker/log4j2-service.properties /opt/engram/log4j2.properties");
    }

    @Test
    void kubernetesManifestsNameTheJarEntryClassesTopicsAndSettingsTheCodeUses() throws Exception {
        JsonNode kustomization = YAML.readTree(ROOT.resolve("deploy/kustomization.yaml").toFile());
        Map<String, List<JsonNode>> byKind = new HashMap<>();
        for (JsonNode resource : kustomization.path("resources")) {
            Path file = ROOT.resolve("deploy").resolve(resource.asText());
            try (var parser = new YAMLFactory().createParser(file.toFile())) {
                for (JsonNode doc : YAML.readValues(parser, JsonNode.class).readAll()) {
                    byKind.computeIfAbsent(doc.path("kind").asText(), k -> new ArrayList<>()).add(doc);
                }
            }
        }
        assertThat(byKind).containsOnlyKeys("KafkaTopic", "KafkaUser", "Job", "FlinkDeployment", "PodMonitor", "Deployment",
                "Service", "PodDisruptionBudget");

        // topics: exactly the contract's, large records where documents and rejects need them
        Map<String, JsonNode> topics = byKind.get("KafkaTopic").stream()
                .collect(Collectors.toMap(t -> t.at("/spec/topicName").asText(), t -> t.path("spec")));
        assertThat(topics).containsOnlyKeys(Topics.ALL.toArray(String[]::new));
        for (String large : List.of(Topics.DOCS, Topics.REJECTS)) {
            assertThat(topics.get(large).at("/config/max.message.bytes").asInt()).as(large).isEqualTo(Topics.LARGE_RECORD_BYTES);
        }

        // the settings Secret: generated from a file the job accepts, naming the index the code creates
        String secret = kustomization.at("/secretGenerator/0/name").asText();
        Path settingsFile = ROOT.resolve("deploy").resolve(kustomization.at("/secretGenerator/0/files/0").asText());
        Properties clusterSettings = properties(settingsFile);
        PipelineConfig clusterConfig = PipelineConfig.fromProperties(clusterSettings);
        assertThat(clusterConfig.index()).isEqualTo(MemoryIndexTemplate.INDEX);
        String mountedFile = "/opt/engram/" + settingsFile.getFileName();

        // secured: SCRAM over TLS as the KafkaUser is, OpenSearch and PostgreSQL over TLS, every secret a file of a
        // mounted Secret (checked per pod below)
        assertSecretsByReference(clusterSettings);
        JsonNode kafkaUser = byKind.get("KafkaUser").get(0);
        assertThat(clusterConfig.kafka().properties()).containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", kafkaUser.at("/spec/authentication/type").asText().toUpperCase(java.util.Locale.ROOT));
        assertThat(clusterConfig.openSearch().url()).startsWith("https://");
        assertThat(clusterConfig.postgresUrl()).contains("sslmode=verify-full");
        List<String> files = new ArrayList<>(references(clusterSettings, "file"));
        files.addAll(settingFiles(clusterSettings));
        files.add(clusterConfig.postgresUrl().replaceAll(".*sslrootcert=([^&]+).*", "$1"));

        JsonNode setup = byKind.get("Job").get(0).at("/spec/template/spec");
        JsonNode setupContainer = setup.at("/containers/0");
        assertThat(setupContainer.path("image").asText()).isEqualTo(IMAGE);
        List<String> setupCommand = strings(setupContainer.path("command"));
        assertThat(setupCommand).contains(EngramSetup.class.getName());
        assertThat(setupCommand.get(setupCommand.indexOf("--config") + 1)).isEqualTo(mountedFile);
        assertMountsSecret(setup, setupContainer, secret, "/opt/engram");
        assertMountsSecretsHolding(setup, setupContainer, files, kafkaUser.at("/metadata/name").asText());

        JsonNode flink = byKind.get("FlinkDeployment").get(0).path("spec");
        assertThat(flink.path("image").asText()).isEqualTo(IMAGE);
        assertThat(flink.at("/job/jarURI").asText()).isEqualTo("local://" + USRLIB_JAR);
        assertThat(flink.at("/job/entryClass").asText()).isEqualTo(EngramJob.class.getName());
        assertThat(flink.at("/job/upgradeMode").asText()).isEqualTo("savepoint");
        assertThat(flink.path("flinkVersion").asText()).isEqualTo("v" + EnvironmentInformation.getVersion()
                .replaceAll("^(\\d+)\\.(\\d+).*", "$1_$2"));
        Map<String, String> settings = new HashMap<>();
        flink.path("flinkConfiguration").properties().forEach(e -> settings.put(e.getKey(), e.getValue().asText()));
        assertRealFlinkOptions(settings);
        assertThat(settings).containsEntry("state.backend.type", "rocksdb")
                .containsEntry("execution.checkpointing.incremental", "true")
                .containsEntry("high-availability.type", "kubernetes");
        assertThat(settings.get("execution.checkpointing.dir")).startsWith("s3://");

        JsonNode pod = flink.at("/podTemplate/spec");
        JsonNode main = pod.at("/containers/0");
        assertThat(main.path("name").asText()).isEqualTo("flink-main-container");
        assertThat(main.path("env")).anySatisfy(e -> {
            assertThat(e.path("name").asText()).isEqualTo("ENGRAM_CONFIG");
            assertThat(e.path("value").asText()).isEqualTo(mountedFile);
        });
        assertMountsSecret(pod, main, secret, "/opt/engram");
        assertMountsSecretsHolding(pod, main, files, kafkaUser.at("/metadata/name").asText());

        // Prometheus scrapes the port the reporter listens on
        JsonNode metricsPort = main.path("ports").get(0);
        assertThat(metricsPort.path("containerPort").asText()).isEqualTo(settings.get("metrics.reporter.prom.port"));
        JsonNode monitor = byKind.get("PodMonitor").get(0).path("spec");
        assertThat(monitor.at("/podMetricsEndpoints/0/port").asText()).isEqualTo(metricsPort.path("name").asText());
        assertThat(monitor.at("/selector/matchLabels/app").asText())
                .isEqualTo(byKind.get("FlinkDeployment").get(0).at("/metadata/name").asText());
        JsonNode serviceMonitor = byKind.get("PodMonitor").get(1).path("spec");
        JsonNode servicePodTemplate = byKind.get("Deployment").get(0).at("/spec/template");
        assertThat(serviceMonitor.at("/selector/matchLabels")).isEqualTo(servicePodTemplate.at("/metadata/labels"));
        assertThat(servicePodTemplate.at("/spec/containers/0/ports")).anySatisfy(p -> assertThat(p.path("name").asText())
                .isEqualTo(serviceMonitor.at("/podMetricsEndpoints/0/port").asText()));
        assertThat(serviceMonitor.at("/podMetricsEndpoints/0/path").asText()).isEqualTo("/metrics");

        // the Grafana dashboard: the repository's one file, as a ConfigMap Grafana's sidecar loads
        JsonNode dashboard = kustomization.path("configMapGenerator").get(0);
        assertThat(strings(dashboard.path("files"))).containsExactly("grafana/engram.json");
        assertThat(dashboard.at("/options/labels/grafana_dashboard").asText()).isEqualTo("1");
        assertThat(ROOT.resolve("deploy/grafana/engram.json")).isRegularFile();

        // the memory service: its image, the settings Secret, the keys Secret, probes on routes it serves
        JsonNode deployment = byKind.get("Deployment").get(0).path("spec");
        JsonNode servicePod = deployment.at("/template/spec");
        JsonNode container = servicePod.at("/containers/0");
        assertThat(container.path("image").asText()).isEqualTo(SERVICE_IMAGE);
        assertMountsSecret(servicePod, container, secret, "/opt/engram");
        assertMountsSecretsHolding(servicePod, container, files, kafkaUser.at("/metadata/name").asText());
        assertThat(container.path("env")).anySatisfy(e -> {
            assertThat(e.path("name").asText()).isEqualTo("ENGRAM_API_KEYS");
            assertThat(e.at("/valueFrom/secretKeyRef/name").asText()).isNotEqualTo(secret); // never in the settings
        });
        List<String> served = Routes.ALL.stream().filter(r -> r.method().equals("GET")).map(Route::template)
                .toList();
        assertThat(served).contains(container.at("/readinessProbe/httpGet/path").asText(),
                container.at("/livenessProbe/httpGet/path").asText());
        JsonNode port = container.path("ports").get(0);
        assertThat(port.path("containerPort").asInt()).isEqualTo(ServiceConfig.from(properties(settingsFile), Map.of()).port());
        JsonNode labels = deployment.at("/template/metadata/labels");
        assertThat(deployment.at("/selector/matchLabels")).isEqualTo(labels);
        assertThat(byKind.get("Service").get(0).at("/spec/selector")).isEqualTo(labels);
        assertThat(byKind.get("Service").get(0).at("/spec/ports/0/targetPort").asText()).isEqualTo(port.path("name").asText());
        JsonNode budget = byKind.get("PodDisruptionBudget").get(0).path("spec");
        assertThat(budget.at("/selector/matchLabels")).isEqualTo(labels);
        assertThat(budget.path("minAvailable").asInt()).isPositive().isLessThan(deployment.path("replicas").asInt());
    }

    @Test
    void theJobJarBundlesTheMigrationsThatCreateTheTablesFlinkSqlReads() throws Exception {
        Set<String> migrations;
        try (var files = Files.list(ROOT.resolve("sql/migrations"))) {
            migrations = files.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
        }
        StringBuilder bundledSql = new StringBuilder();
        try (JarFile jar = new JarFile(System.getProperty("engram.job.jar"))) {
            for (String file : migrations) {
                ZipEntry entry = jar.getEntry("engram/sql/migrations/" + file);
                assertThat(entry).as("migration %s in the job jar (EngramSetup applies it)", file).isNotNull();
                bundledSql.append(new String(jar.getInputStream(entry).readAllBytes()));
            }
        }
        Matcher tables = Pattern.compile("'table-name'\\s*=\\s*'([a-z_]+)'")
                .matcher(Files.readString(ROOT.resolve("sql/flink/tables.sql")));
        List<String> names = new ArrayList<>();
        while (tables.find()) {
            names.add(tables.group(1));
        }
        assertThat(names).contains("cycle_metrics", "collapse_alerts", "canary_queries");
        for (String table : names) {
            assertThat(bundledSql.toString()).as(table).containsPattern("CREATE TABLE (IF NOT EXISTS )?" + table + " \\(");
        }
    }

    private static final Pattern REFERENCE = Pattern.compile("\\$\\{(env|file):([^}]+)}");

    /** Every password and JAAS setting is a reference ({@code ${env:…}} or {@code ${file:…}}), never the secret. */
    private static void assertSecretsByReference(Properties settings) {
        for (String key : settings.stringPropertyNames()) {
            if (key.endsWith("password") || key.endsWith("jaas.config")) {
                assertThat(settings.getProperty(key)).as(key).matches(REFERENCE);
            }
        }
    }

    /** The variable names or file paths the settings refer to, by kind ({@code env} or {@code file}). */
    private static List<String> references(Properties settings, String kind) {
        List<String> out = new ArrayList<>();
        for (String key : settings.stringPropertyNames()) {
            Matcher m = REFERENCE.matcher(settings.getProperty(key));
            if (m.matches() && m.group(1).equals(kind)) {
                out.add(m.group(2));
            }
        }
        return out;
    }

    /** The files the settings name directly: trust stores and certificate authorities. */
    private static List<String> settingFiles(Properties settings) {
        return settings.stringPropertyNames().stream()
                .filter(k -> k.endsWith("truststore.location") || k.equals("opensearch.tls.ca"))
                .map(settings::getProperty).toList();
    }

    /** Each file lies under a read-only mount of a Secret volume of the pod; the Kafka user's Secret is among them. */
    private static void assertMountsSecretsHolding(JsonNode pod, JsonNode container, List<String> files, String kafkaUser) {
        Map<String, String> secretByVolume = new HashMap<>();
        pod.path("volumes").forEach(v -> secretByVolume.put(v.path("name").asText(), v.at("/secret/secretName").asText()));
        assertThat(secretByVolume).containsValue(kafkaUser);
        for (String file : files) {
            assertThat(container.path("volumeMounts")).as(file).anySatisfy(m -> {
                assertThat(file).startsWith(m.path("mountPath").asText() + "/");
                assertThat(m.path("readOnly").asBoolean()).isTrue();
                assertThat(secretByVolume.get(m.path("name").asText())).isNotEmpty();
            });
        }
    }

    private static void assertMountsSecret(JsonNode pod, JsonNode container, String secret, String path) {
        String volume = null;
        for (JsonNode v : pod.path("volumes")) {
            if (v.at("/secret/secretName").asText().equals(secret)) {
                volume = v.path("name").asText();
            }
        }
        assertThat(volume).as("a volume of the Secret %s", secret).isNotNull();
        String name = volume;
        assertThat(container.path("volumeMounts")).anySatisfy(m -> {
            assertThat(m.path("name").asText()).isEqualTo(name);
            assertThat(m.path("mountPath").asText()).isEqualTo(path);
        });
    }

    /** Every key is an option Flink 2.2 defines (or a reporter's own namespace): a typo fails here, not in production. */
    private static void assertRealFlinkOptions(Map<String, String> settings) throws Exception {
        Set<String> known = flinkOptionKeys();
        for (String key : settings.keySet()) {
            if (!key.startsWith("metrics.reporter.")) {
                assertThat(known).as("Flink option %s", key).contains(key);
            }
        }
    }

    private static Set<String> flinkOptionKeys() throws Exception {
        Set<String> keys = new HashSet<>();
        Path coreJar = Path.of(CoreOptions.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        try (JarFile jar = new JarFile(coreJar.toFile())) {
            for (String entry : jar.stream().map(ZipEntry::getName)
                    .filter(n -> n.matches("org/apache/flink/configuration/[A-Za-z]+Options\\.class")).toList()) {
                Class<?> options = Class.forName(entry.replace('/', '.').replace(".class", ""));
                for (Field f : options.getFields()) {
                    if (Modifier.isStatic(f.getModifiers()) && ConfigOption.class.isAssignableFrom(f.getType())) {
                        ConfigOption<?> option = (ConfigOption<?>) f.get(null);
                        keys.add(option.key());
                        for (FallbackKey fallback : option.fallbackKeys()) {
                            keys.add(fallback.getKey());
                        }
                    }
                }
            }
        }
        assertThat(keys).contains("state.backend.type", "execution.checkpointing.dir");
        return keys;
    }

    private static Map<String, String> flinkProperties(String yaml) throws Exception {
        Map<String, String> out = new HashMap<>();
        YAML.readTree(yaml).properties().forEach(e -> out.put(e.getKey(), e.getValue().asText()));
        return out;
    }

    private static Properties properties(Path file) throws Exception {
        Properties p = new Properties();
        try (Reader in = new StringReader(Files.readString(file))) {
            p.load(in);
        }
        return p;
    }

    private static List<String> names(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
