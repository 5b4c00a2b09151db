package io.engram.jobs.ingest;

import io.engram.client.PayloadKind;
import io.engram.client.PayloadValidator;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Reads every Kafka record of the input topics into an {@link Ingested}, validating it on the way
 * ({@link PayloadValidator}: the gateway client's own rules). Whatever the bytes, the result is a payload or a
 * reject, so bad input cannot fail the source; only a bug in the validator itself does. Valid payloads carry their {@code ts} as event
 * time; rejects carry the Kafka record's time.
 */
public final class PayloadDeserializer implements KafkaRecordDeserializationSchema<Ingested> {

    private static final long serialVersionUID = 1L;

    private final PayloadValidator.Limits limits;
    private transient PayloadValidator validator;

    public PayloadDeserializer(PayloadValidator.Limits limits) {
        this.limits = limits;
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
        validator = new PayloadValidator(limits);
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Ingested> out) {
        out.collect(ingest(validator, record.topic(), record.partition(), record.offset(), record.timestamp(),
                record.value()));
    }

    static Ingested ingest(PayloadValidator validator, String topic, int partition, long offset, long recordTime,
                           byte[] value) {
        PayloadKind expected = PayloadKind.ofTopic(topic);
        // The validator turns every bad input into an Invalid result; an exception from it is a bug in Engram,
        // which must fail the task loudly instead of passing for the gateway's bad input.
        PayloadValidator.Result result = validator.validate(value, expected);
        if (result instanceof PayloadValidator.Valid valid) {
            return new Ingested(valid.kind(), valid.payload().toString(), valid.tenantId(), valid.ts().toEpochMilli(),
                    topic, partition, offset, valid.kind() == PayloadKind.DOC ? value : null, null, null);
        }
        PayloadValidator.Invalid bad = (PayloadValidator.Invalid) result;
        return new Ingested(expected, null, bad.tenantId(), recordTime, topic, partition, offset, value,
                bad.reason().code(), bad.message());
    }

    @Override
    public TypeInformation<Ingested> getProducedType() {
        return TypeInformation.of(Ingested.class);
    }
}
