package io.engram.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedServicesExtension;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** An import through the gateway producer into a real broker, read back: topics, keys, order, tenant; twice. */
@ExtendWith(EmbeddedServicesExtension.class)
class ImporterKafkaTest {

    private static final String TARGET = "import-live";

    @Test
    void anImportLandsUnderTheTargetsKeysInOrderAndASecondImportSendsTheSameRecords(EmbeddedKafka broker)
            throws IOException {
        KafkaClients kafka = KafkaClients.at(broker.bootstrapServers());
        Topics.create(kafka, 3);
        String export = String.join("\n",
                ImporterTest.turn("src", "s1", "t1", 1, "one"),
                ImporterTest.turn("src", "s2", "t1", 1, "other session"),
                ImporterTest.memory("src", "city-1", "lives in Paris"),
                ImporterTest.turn("src", "s1", "t2", 2, "two"),
                "{\"schema\":\"memory.v1\",\"tenant_id\":\"src\",\"memory_id\":\"city-2\",\"type\":\"memory\","
                        + "\"op\":\"upsert\",\"text\":\"lives in Lyon\",\"key\":\"user.city\","
                        + "\"supersedes\":[\"src/city-1\"],\"ts\":\"2025-01-03T00:00:00Z\"}",
                "{\"schema\":\"derived.v1\",\"tenant_id\":\"src\"}",
                ImporterTest.memory("src", "city-3", "lives in Nantes"));
        Importer importer = new Importer(PayloadValidator.Limits.DEFAULT);

        Importer.Outcome first;
        Importer.Outcome second;
        try (EngramProducer producer = new EngramProducer(kafka, new java.util.Properties(),
                PayloadValidator.Limits.DEFAULT)) {
            first = importer.run(input(export), TARGET, Importer.Format.ENGRAM, Importer.through(producer));
            second = importer.run(input(export), TARGET, Importer.Format.ENGRAM, Importer.through(producer));
        }

        assertThat(first.accepted()).isEqualTo(Map.of("turn.v1", 3L, "memory.v1", 3L));
        assertThat(second).isEqualTo(first);
        List<ConsumerRecord<byte[], byte[]>> memories = ours(kafka, Topics.MEMORIES);
        assertThat(memories).extracting(r -> text(r.key())).containsOnly(TARGET);
        assertThat(memories).extracting(r -> field(r, "memory_id"))
                .containsExactly("city-1", "city-2", "city-3", "city-1", "city-2", "city-3");
        assertThat(text(memories.get(1).value())).contains("\"supersedes\":[\"import-live/city-1\"]");
        for (int i = 0; i < 3; i++) { // the second import's records are the first's, byte for byte
            assertThat(memories.get(i + 3).value()).isEqualTo(memories.get(i).value());
        }
        List<ConsumerRecord<byte[], byte[]>> s1 = ours(kafka, Topics.TURNS).stream()
                .filter(r -> text(r.key()).equals(TARGET + "/s1")).toList();
        assertThat(s1).extracting(r -> field(r, "turn_id")).containsExactly("t1", "t2", "t1", "t2");
        assertThat(s1).extracting(ConsumerRecord::partition).containsOnly(s1.get(0).partition());
        assertThat(ours(kafka, Topics.TURNS)).extracting(r -> text(r.key()))
                .containsOnly(TARGET + "/s1", TARGET + "/s2");
    }

    private static ByteArrayInputStream input(String text) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }

    private static List<ConsumerRecord<byte[], byte[]>> ours(KafkaClients kafka, String topic) {
        return TopicReader.readAll(kafka, topic).stream()
                .filter(r -> text(r.value()).contains("\"tenant_id\":\"" + TARGET + "\"")).toList();
    }

    private static String field(ConsumerRecord<byte[], byte[]> r, String name) {
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.value()).get(name).asText();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
