package io.engram.bench.scale;

import io.engram.client.KafkaClients;
import io.engram.client.Payload;
import io.engram.client.PayloadKind;
import io.engram.client.Topics;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A record later in event time on every partition of every input topic, of a tenant the bench never measures: event
 * time moves only with records, and a restored job starts without a watermark, so that sessions are compacted and
 * quiet cycles closed once the load is over, every split needs one more record (RunCrashTest's way).
 */
final class EventTimeEnd {

    static final String TENANT = "scale-end";

    private EventTimeEnd() {
    }

    static void send(String kafka, Instant at) throws Exception {
        Properties raw = KafkaClients.at(kafka).config();
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(raw, new StringSerializer(), new ByteArraySerializer())) {
            for (String topic : Topics.INPUTS) {
                for (PartitionInfo partition : producer.partitionsFor(topic)) {
                    Payload end = switch (PayloadKind.ofTopic(topic)) {
                        case TURN -> Payload.turn(TENANT, "s" + partition.partition(), "u", "t", 0, "user", "The end.", at);
                        case DOC -> Payload.doc(TENANT, "a", "END-" + partition.partition() + ".md", "core", 1,
                                "# End\n\nThe end.\n", at);
                        case MEMORY -> Payload.memory(TENANT, "m" + partition.partition(), "memory", "The end.", List.of(), 0,
                                null, at);
                        case FORGET -> Payload.forget(TENANT, "f" + partition.partition(), "user", "nobody", at);
                    };
                    producer.send(new ProducerRecord<>(topic, partition.partition(), end.key(), end.bytes())).get();
                }
            }
        }
    }
}
