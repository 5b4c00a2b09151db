package io.engram.client;

import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The gateway's producer: validates each payload with the pipeline's own {@link PayloadValidator} before send
 * (a bad payload throws {@link InvalidPayloadException} here instead of becoming a reject downstream), sends it
 * to its topic under its key, idempotently and with acks from all replicas. The Kafka record time is the send
 * time, not the payload's {@code ts} (the pipeline reads event time from the payload): topic retention counts
 * from when a record arrived, so a backfill of old conversations is not deleted by retention before it is read.
 */
public final class EngramProducer implements AutoCloseable {

    private final KafkaProducer<String, byte[]> producer;
    private final PayloadValidator validator;

    public EngramProducer(String bootstrapServers) {
        this(KafkaClients.at(bootstrapServers), new Properties(), PayloadValidator.Limits.DEFAULT);
    }

    /** @param overrides producer settings over Engram's own and {@code kafka}'s */
    public EngramProducer(KafkaClients kafka, Properties overrides, PayloadValidator.Limits limits) {
        Properties props = new Properties();
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, String.valueOf(limits.maxDocumentBytes() + 1024 * 1024));
        props.putAll(kafka.config());
        props.putAll(overrides);
        this.producer = new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer());
        this.validator = new PayloadValidator(limits);
    }

    public Future<RecordMetadata> send(Payload payload) {
        if (validator.validate(payload) instanceof PayloadValidator.Invalid bad) {
            throw new InvalidPayloadException(bad.reason(), bad.message());
        }
        return producer.send(new ProducerRecord<>(payload.kind().topic(), payload.key(), payload.bytes()));
    }

    public void flush() {
        producer.flush();
    }

    @Override
    public void close() {
        producer.close();
    }
}
