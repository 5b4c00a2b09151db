package io.engram.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.bench.RawHttp;
import io.engram.client.KafkaClients;
import io.engram.client.Topics;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** The rejects topic read from its start to its end: how many records the runs refused, by reason code. */
final class Rejects {

    private Rejects() {
    }

    static Map<String, Long> byReason(String kafka) throws IOException {
        Properties config = KafkaClients.at(kafka).config();
        config.setProperty("enable.auto.commit", "false");
        Map<String, Long> out = new TreeMap<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.REJECTS).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).collect(Collectors.toList());
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofSeconds(1))) {
                    JsonNode reject = RawHttp.JSON.readTree(r.value());
                    out.merge(reject.path("reason_code").asText(), 1L, Long::sum);
                }
            }
        }
        return out;
    }
}
