package io.engram.jobs.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedServicesExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A draining stop of a job whose Kafka source went idle: the event-time timer of a record read before must
 * still fire before the final savepoint. Without {@link EndOfInputWatermark} it does not on Flink 2.2 (the idle
 * source's final watermark is dropped, FLINK-40499).
 */
@ExtendWith(EmbeddedServicesExtension.class)
class EndOfInputWatermarkTest {

    static final CountDownLatch SEEN = new CountDownLatch(1);
    static final CountDownLatch IDLE = new CountDownLatch(1);
    static final Queue<Long> FIRED = new ConcurrentLinkedQueue<>();

    @Test
    void aDrainingStopEndsEventTimeAfterTheSourceWentIdle(EmbeddedKafka kafka, @TempDir Path savepoints)
            throws Exception {
        String topic = "end-of-input-watermark";
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        Properties producer = new Properties();
        producer.put("bootstrap.servers", kafka.bootstrapServers());
        try (KafkaProducer<String, String> p = new KafkaProducer<>(producer, new StringSerializer(), new StringSerializer())) {
            p.send(new ProducerRecord<>(topic, "1000")).get(); // event time 1 s: its timer is at 1 h + 1 s
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.fromSource(KafkaSource.<String>builder().setBootstrapServers(kafka.bootstrapServers()).setTopics(topic)
                                .setGroupId("end-of-input").setStartingOffsets(OffsetsInitializer.earliest())
                                .setValueOnlyDeserializer(new SimpleStringSchema()).build(),
                        WatermarkStrategy.<String>forMonotonousTimestamps()
                                .withTimestampAssigner((s, kafkaTime) -> Long.parseLong(s))
                                .withIdleness(Duration.ofMillis(200)), "source")
                .transform("end of input", Types.STRING, new EndOfInputWatermark<>())
                .transform("observe idleness", Types.STRING, new IdlenessObserver())
                .keyBy(s -> "one")
                .process(new TimerInAnHour())
                .sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync("end-of-input-watermark");
        assertThat(SEEN.await(60, TimeUnit.SECONDS)).as("the record was read").isTrue();
        assertThat(IDLE.await(60, TimeUnit.SECONDS)).as("the source announced itself idle").isTrue();
        job.stopWithSavepoint(true, savepoints.toUri().toString(), SavepointFormatType.CANONICAL).get(60, TimeUnit.SECONDS);
        assertThat(FIRED).containsExactly(1000 + Duration.ofHours(1).toMillis());
    }

    /** Counts {@link #IDLE} down once the source's idle status has passed. */
    static final class IdlenessObserver extends AbstractStreamOperator<String> implements OneInputStreamOperator<String, String> {
        @Override
        public void processElement(StreamRecord<String> element) {
            output.collect(element);
        }

        @Override
        public void processWatermarkStatus(WatermarkStatus status) throws Exception {
            super.processWatermarkStatus(status);
            if (status.isIdle()) {
                IDLE.countDown(); // from here on the source's watermarks are dropped
            }
        }
    }

    /** Registers an event-time timer an hour after each record and records when one fires. */
    static final class TimerInAnHour extends KeyedProcessFunction<String, String, String> {
        @Override
        public void processElement(String value, Context ctx, Collector<String> out) {
            ctx.timerService().registerEventTimeTimer(ctx.timestamp() + Duration.ofHours(1).toMillis());
            SEEN.countDown();
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext ctx, Collector<String> out) {
            FIRED.add(timestamp);
        }
    }
}
