package io.engram.launcher;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Small reads of Kafka topics for the command line. */
final class Kafka {

    private Kafka() {
    }

    /** How many committed records a topic holds. */
    static long count(String bootstrapServers, String topic) {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrapServers);
        props.put("isolation.level", "read_committed");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long n = 0;
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                n += consumer.poll(Duration.ofMillis(500)).count();
            }
            return n;
        }
    }
}
