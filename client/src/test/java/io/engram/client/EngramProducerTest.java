package io.engram.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedServicesExtension;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The gateway producer against a real broker: topics, keys, record times, payload bytes. */
@ExtendWith(EmbeddedServicesExtension.class)
class EngramProducerTest {

    @Test
    void sendsEachPayloadToItsTopicUnderItsKeyStampedWithTheSendTime(EmbeddedKafka kafka) throws Exception {
        Topics.create(io.engram.client.KafkaClients.at(kafka.bootstrapServers()), 2);
        Instant old = Instant.parse("2020-01-01T00:00:00Z"); // a backfill far older than the topics' retention
        Instant before = Instant.now();
        List<Payload> sent = List.of(
                Payload.turn("prod-test", "s1", "u1", "t1", 1, "user", "hello", old),
                Payload.doc("prod-test", "agent", "AGENTS.md", "core", 1, "# Rules\n- Always test.", old),
                Payload.memory("prod-test", "m1", "memory", "likes tea", List.of(), 0, "c1", old));
        try (EngramProducer producer = new EngramProducer(kafka.bootstrapServers())) {
            for (Payload p : sent) {
                producer.send(p).get();
            }
        }
        Map<String, String> expectedKeys = Map.of(Topics.TURNS, "prod-test/s1", Topics.DOCS, "prod-test/agent/AGENTS.md",
                Topics.MEMORIES, "prod-test");
        for (Payload p : sent) {
            List<ConsumerRecord<byte[], byte[]>> got = TopicReader.readAll(io.engram.client.KafkaClients.at(kafka.bootstrapServers()), p.kind().topic())
                    .stream().filter(r -> new String(r.value(), StandardCharsets.UTF_8).contains("\"tenant_id\":\"prod-test\""))
                    .toList();
            assertThat(got).hasSize(1);
            ConsumerRecord<byte[], byte[]> r = got.get(0);
            assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo(expectedKeys.get(p.kind().topic()));
            assertThat(r.value()).isEqualTo(p.bytes());
            assertThat(Instant.ofEpochMilli(r.timestamp())).isAfterOrEqualTo(before.minusSeconds(1));
        }
    }
}
