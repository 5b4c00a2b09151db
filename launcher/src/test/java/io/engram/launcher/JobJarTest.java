package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/**
 * The shaded job jar is what a Flink cluster runs: Engram's code and connectors, no servers, no Flink, no native
 * code; the native-code dependencies come beside it in {@code native-lib/} for the cluster's {@code lib/}. The
 * memory service's image is the other way round: its classpath holds no Flink.
 */
class JobJarTest {

    @Test
    void shadedJobJarHoldsTheJobsAndNoEmbeddedServerOrFlinkRuntime() throws Exception {
        Path jar = Path.of(System.getProperty("engram.job.jar"));
        assertThat(jar).as("built by the jobs module's package phase (mvn verify)").exists();
        try (JarFile jobJar = new JarFile(jar.toFile())) {
            List<String> names = jobJar.stream().map(ZipEntry::getName).toList();
            assertThat(names).anyMatch(n -> n.startsWith("io/engram/jobs/"));
            assertThat(names).anyMatch(n -> n.startsWith("io/engram/model/"));
            assertThat(names).anyMatch(n -> n.startsWith("org/apache/flink/connector/kafka/"));
            List<String> forbidden = List.of(
                    "io/engram/stack/",            // the embedded stack module
                    "io/engram/service/",          // the memory service: a process of its own
                    "com/sun/net/httpserver/",     // no HTTP server of any kind
                    "kafka/server/",               // the Kafka broker
                    "org/opensearch/node/",        // an OpenSearch node
                    "org/codelibs/opensearch/",    // the in-JVM OpenSearch runner
                    "io/zonky/",                   // embedded PostgreSQL
                    "org/apache/flink/runtime/",   // the cluster brings Flink itself
                    "org/apache/flink/streaming/api/environment/");
            for (String prefix : forbidden) {
                assertThat(names).as("entries under %s", prefix).noneMatch(n -> n.startsWith(prefix));
            }
            // the embedding model is in the jar; ONNX Runtime and the tokenizers (native code) are not: native
            // libraries load once per JVM, so they belong on Flink's classpath, not in a job classloader
            assertThat(names).contains("all-minilm-l6-v2.onnx");
            assertThat(names).noneMatch(n -> n.startsWith("ai/onnxruntime/") || n.startsWith("ai/djl/")
                    || n.startsWith("native/lib/"));
        }
        // ...they come next to the jar, for lib/: with the Linux natives inside
        Path nativeLib = jar.resolveSibling("native-lib");
        List<String> natives = new java.util.ArrayList<>();
        try (var jars = Files.list(nativeLib)) {
            for (Path p : jars.toList()) {
                try (JarFile lib = new JarFile(p.toFile())) {
                    lib.stream().map(ZipEntry::getName).forEach(natives::add);
                }
            }
        }
        assertThat(natives).contains("ai/onnxruntime/native/linux-x64/libonnxruntime.so",
                "native/lib/linux-x86_64/cpu/libtokenizers.so", "ai/djl/huggingface/tokenizers/HuggingFaceTokenizer.class");
        assertThat(Files.size(jar)).isLessThan(200L * 1024 * 1024);
    }

    @Test
    void theMemoryServiceRunsWithoutFlink() throws Exception {
        Path lib = Path.of(System.getProperty("engram.root"), "service", "target", "lib");
        assertThat(lib).as("copied by the service module's package phase (mvn verify)").isDirectory();
        List<String> jars;
        try (var files = Files.list(lib)) {
            jars = files.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertThat(jars).anyMatch(j -> j.startsWith("engram-store-")).anyMatch(j -> j.startsWith("kafka-clients-"))
                .anyMatch(j -> j.startsWith("opensearch-java-")).anyMatch(j -> j.startsWith("postgresql-"));
        assertThat(jars).as("the service's runtime classpath").noneMatch(j -> j.startsWith("flink-")
                || j.startsWith("engram-jobs-") || j.startsWith("engram-stack-") || j.startsWith("engram-launcher-"));
    }
}
