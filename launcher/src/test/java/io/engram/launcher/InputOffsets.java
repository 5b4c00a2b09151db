package io.engram.launcher;

import io.engram.client.Topics;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/** Where the input topics end, and how far a group has read and checkpointed them: a job is done when they meet. */
final class InputOffsets {

    private InputOffsets() {
    }

    /** The end offset of every partition of the input topics. */
    static Map<TopicPartition, Long> end(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            Map<TopicPartition, OffsetSpec> request = new HashMap<>();
            for (var topic : admin.describeTopics(Topics.INPUTS).allTopicNames().get(30, TimeUnit.SECONDS).values()) {
                topic.partitions().forEach(p -> request.put(new TopicPartition(topic.name(), p.partition()), OffsetSpec.latest()));
            }
            Map<TopicPartition, Long> offsets = new HashMap<>();
            admin.listOffsets(request).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> offsets.put(tp, info.offset()));
            return offsets;
        }
    }

    /** The group's committed offsets: the Kafka source commits them when a checkpoint completes. */
    static Map<TopicPartition, Long> committed(String bootstrap, String group) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            Map<TopicPartition, Long> offsets = new HashMap<>();
            admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
                    .forEach((tp, m) -> offsets.put(tp, m == null ? -1 : m.offset()));
            return offsets;
        }
    }

    /** Whether the group has read and checkpointed every input partition that holds records, empty ones aside. */
    static boolean allRead(String bootstrap, String group) throws Exception {
        Map<TopicPartition, Long> committed = committed(bootstrap, group);
        return end(bootstrap).entrySet().stream()
                .allMatch(e -> e.getValue() == 0 || committed.getOrDefault(e.getKey(), -1L).equals(e.getValue()));
    }
}
