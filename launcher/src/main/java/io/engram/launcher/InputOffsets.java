package io.engram.launcher;

import io.engram.client.KafkaClients;
import io.engram.client.Topics;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * Where the input topics end, and how far a group has read and checkpointed them (the Kafka source commits its
 * offsets when a checkpoint completes): a job is done reading when they meet.
 */
final class InputOffsets {

    /** How long one question to Kafka may take. */
    static final int SECONDS = 30;

    private InputOffsets() {
    }

    /** The end offset of every partition of the input topics (those that exist). */
    static Map<TopicPartition, Long> end(Admin admin) throws ExecutionException, InterruptedException, TimeoutException {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (var topic : admin.describeTopics(Topics.INPUTS).allTopicNames().get(SECONDS, TimeUnit.SECONDS).values()) {
            topic.partitions().forEach(p -> request.put(new TopicPartition(topic.name(), p.partition()), OffsetSpec.latest()));
        }
        Map<TopicPartition, Long> offsets = new HashMap<>();
        admin.listOffsets(request).all().get(SECONDS, TimeUnit.SECONDS).forEach((tp, info) -> offsets.put(tp, info.offset()));
        return offsets;
    }

    /** The group's committed offsets (of every topic it committed to), -1 where a partition has none. */
    static Map<TopicPartition, Long> committed(Admin admin, String group)
            throws ExecutionException, InterruptedException, TimeoutException {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(SECONDS, TimeUnit.SECONDS)
                .forEach((tp, m) -> offsets.put(tp, m == null ? -1 : m.offset()));
        return offsets;
    }

    static Map<TopicPartition, Long> end(KafkaClients kafka) throws Exception {
        try (Admin admin = Admin.create(kafka.config())) {
            return end(admin);
        }
    }

    static Map<TopicPartition, Long> committed(KafkaClients kafka, String group) throws Exception {
        try (Admin admin = Admin.create(kafka.config())) {
            return committed(admin, group);
        }
    }

    /** Whether the group has read and checkpointed every input partition that holds records, empty ones aside. */
    static boolean allRead(KafkaClients kafka, String group) throws Exception {
        Map<TopicPartition, Long> committed = committed(kafka, group);
        return end(kafka).entrySet().stream()
                .allMatch(e -> e.getValue() == 0 || committed.getOrDefault(e.getKey(), -1L).equals(e.getValue()));
    }
}
