package io.engram.client;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Reads the committed records of a topic, up to its end now (rejects, alerts, inspection). */
public final class TopicReader {

    private TopicReader() {
    }

    /** Every committed record of the topic, from the beginning. */
    public static List<ConsumerRecord<byte[], byte[]>> readAll(KafkaClients kafka, String topic) {
        return readSince(kafka, topic, Instant.EPOCH);
    }

    /** The last {@code perPartition} committed records of each partition of the topic (fewer where there are fewer). */
    public static List<ConsumerRecord<byte[], byte[]>> readTail(KafkaClients kafka, String topic, int perPartition) {
        return read(kafka, topic, (consumer, end) -> {
            Map<TopicPartition, Long> begin = consumer.beginningOffsets(end.keySet());
            end.forEach((tp, last) -> consumer.seek(tp, Math.max(begin.get(tp), last - perPartition)));
        });
    }

    /** The committed records of the topic whose timestamp is {@code since} or later. */
    public static List<ConsumerRecord<byte[], byte[]>> readSince(KafkaClients kafka, String topic, Instant since) {
        return read(kafka, topic, (consumer, end) -> {
            Map<TopicPartition, Long> at = new HashMap<>();
            end.keySet().forEach(tp -> at.put(tp, since.toEpochMilli()));
            consumer.offsetsForTimes(at).forEach((tp, found) -> consumer.seek(tp, found == null ? end.get(tp) : found.offset()));
        });
    }

    /** Where a read starts: seeks each assigned partition, given the end offsets. */
    private interface Start {
        void seek(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end);
    }

    private static List<ConsumerRecord<byte[], byte[]>> read(KafkaClients kafka, String topic, Start start) {
        Properties props = kafka.config();
        props.put("isolation.level", "read_committed");
        props.put("max.partition.fetch.bytes", String.valueOf(Topics.LARGE_RECORD_BYTES));
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            start.seek(consumer, end);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }
}
