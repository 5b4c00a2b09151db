package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.client.KafkaClients;
import io.engram.client.TopicReader;
import io.engram.client.Topics;
import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedServicesExtension;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./engram import}: its summary, its refusals, and a file and stdin imported into a real broker. */
@ExtendWith(EmbeddedServicesExtension.class)
class ImportCommandTest {

    @TempDir
    Path dir;

    private static String memory(String tenant, String id, String text) {
        return "{\"schema\":\"memory.v1\",\"tenant_id\":\"" + tenant + "\",\"memory_id\":\"" + id
                + "\",\"type\":\"memory\",\"op\":\"upsert\",\"text\":\"" + text + "\",\"ts\":\"2025-01-02T00:00:00Z\"}";
    }

    private Path export(String... lines) throws Exception {
        return Files.write(dir.resolve("export.jsonl"), List.of(lines));
    }

    @Test
    void aDryRunPrintsOneLinePerSchemaAndEachRejectedLineAndExits1WhenALineWasRejected() throws Exception {
        Path file = export(memory("src", "m1", "tea"), "{\"schema\":\"cursor.v1\",\"tenant_id\":\"src\"}",
                "{\"schema\":\"forget.v1\",\"tenant_id\":\"src\"}", memory("src", "m2", "coffee"));

        CliRun run = CliRun.of("import", file.toString(), "--tenant", "dst", "--dry-run");

        assertThat(run.exit()).as(run.err()).isEqualTo(1);
        assertThat(run.out()).isEqualTo("""
                memory.v1  2 valid (dry run: nothing sent)
                skipped    1 (derived records and resume points)
                rejected   1
                line 3: forget.v1: forgets are not imported
                """);
        assertThat(CliRun.of("import", export(memory("src", "m1", "tea")).toString(), "--tenant", "dst", "--dry-run")
                .exit()).isZero();
    }

    @Test
    void aBadTenantAFileThatIsNotThereAndAnUnknownFormatAreOneLineEach() throws Exception {
        CliRun badTenant = CliRun.of("import", export().toString(), "--tenant", "Not A Tenant", "--dry-run");
        assertThat(badTenant.exit()).isEqualTo(2);
        assertThat(badTenant.err()).isEqualTo("engram: --tenant: 'Not A Tenant' is not a tenant id"
                + " (^[a-z0-9][a-z0-9_-]{0,62}$)\n");
        CliRun missing = CliRun.of("import", dir.resolve("nothing.jsonl").toString(), "--tenant", "dst", "--dry-run");
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err()).startsWith("engram: FILE: no such file: ");
        CliRun format = CliRun.of("import", export().toString(), "--tenant", "dst", "--format", "csv");
        assertThat(format.exit()).isEqualTo(2);
        assertThat(format.err()).startsWith("engram: Invalid value for option '--format': expected one of [ENGRAM, MEM0] (case-insensitive) but was 'csv'");
    }

    @Test
    void aFileAndMem0sMemoriesOnStdinArePublishedToKafkaAsTheTargetTenant(EmbeddedKafka broker) throws Exception {
        KafkaClients kafka = KafkaClients.at(broker.bootstrapServers());
        Topics.create(kafka, 2);
        Path config = Files.writeString(dir.resolve("engram.properties"), "kafka.bootstrap=" + broker.bootstrapServers());

        CliRun fromFile = CliRun.of("import", export(memory("src", "m1", "tea"), memory("src", "m2", "coffee")).toString(),
                "--tenant", "import-cli", "--config", config.toString());
        String mem0 = "{\"results\": [{\"id\": \"9f2c\", \"memory\": \"Alex prefers window seats\", \"user_id\": \"alex\","
                + " \"created_at\": \"2024-07-05T15:30:00Z\"}]}";
        InputStream stdin = System.in;
        CliRun fromStdin;
        try {
            System.setIn(new ByteArrayInputStream(mem0.getBytes(StandardCharsets.UTF_8)));
            fromStdin = CliRun.of("import", "-", "--tenant", "import-cli", "--format", "mem0", "--config", config.toString());
        } finally {
            System.setIn(stdin);
        }

        assertThat(fromFile.exit()).as(fromFile.err()).isZero();
        assertThat(fromFile.out()).startsWith("memory.v1  2 sent\n");
        assertThat(fromStdin.exit()).as(fromStdin.err()).isZero();
        assertThat(fromStdin.out()).startsWith("memory.v1  1 sent\n");
        List<ConsumerRecord<byte[], byte[]>> ours = TopicReader.readAll(kafka, Topics.MEMORIES).stream()
                .filter(r -> new String(r.key(), StandardCharsets.UTF_8).equals("import-cli")).toList();
        assertThat(ours).extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
                .allMatch(v -> v.contains("\"tenant_id\":\"import-cli\""))
                .anyMatch(v -> v.contains("\"memory_id\":\"m1\""))
                .anyMatch(v -> v.contains("\"memory_id\":\"9f2c\"") && v.contains("\"user_id\":\"alex\""));
        assertThat(ours).hasSize(3);
    }
}
