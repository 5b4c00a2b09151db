package io.engram.jobs.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedServicesExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumState;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The bounded source's enumerator and reader against the Kafka connector's own, on a real broker: a restored
 * enumerator whose checkpoint had assigned every partition ends its readers, where the connector's alone leaves
 * them waiting; a fresh one is signalled once, by the connector; a split without a stopping offset gets one.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class BoundedKafkaSourceTest {

    private static final String TOPIC = "bounded-source-test";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
    /** What a checkpoint of a bounded run holds once both partitions were assigned (one read to its end). */
    private static final KafkaSourceEnumState EVERY_PARTITION_ASSIGNED = new KafkaSourceEnumState(
            List.of(new KafkaPartitionSplit(P0, 0, 5), new KafkaPartitionSplit(P1, 0, 3)), List.of(), true);

    private static KafkaSource<String> kafka(EmbeddedKafka broker) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrapServers()))) {
            if (!admin.listTopics().names().get().contains(TOPIC)) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get();
            }
        }
        return KafkaSource.<String>builder().setBootstrapServers(broker.bootstrapServers()).setTopics(TOPIC)
                .setGroupId("bounded-source-test").setStartingOffsets(OffsetsInitializer.earliest())
                .setBounded(OffsetsInitializer.latest())
                .setDeserializer(KafkaRecordDeserializationSchema.valueOnly(StringDeserializer.class)).build();
    }

    @Test
    void aRestoredEnumeratorWhoseCheckpointAssignedEveryPartitionEndsItsReaders(EmbeddedKafka broker) throws Exception {
        Coordinator coordinator = new Coordinator(0);
        try (SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> enumerator =
                     new BoundedKafkaSource<>(kafka(broker)).restoreEnumerator(coordinator, EVERY_PARTITION_ASSIGNED)) {
            enumerator.start();
            assertThat(coordinator.assigned).as("nothing to assign again").isEmpty();
            assertThat(coordinator.ended).containsExactly(0);

            coordinator.register(1); // a reader that registers later, e.g. restarted after a failure
            enumerator.addReader(1);
            assertThat(coordinator.ended).containsExactly(0, 1);
        }
    }

    /** The gap the wrapper closes: if a connector upgrade fixes it, this fails and the wrapper can go. */
    @Test
    void theConnectorsOwnRestoredEnumeratorNeverEndsItsReaders(EmbeddedKafka broker) throws Exception {
        Coordinator coordinator = new Coordinator(0);
        try (SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> enumerator =
                     kafka(broker).restoreEnumerator(coordinator, EVERY_PARTITION_ASSIGNED)) {
            enumerator.start();
            enumerator.addReader(0);
            assertThat(coordinator.ended).isEmpty();
        }
    }

    @Test
    void aFreshEnumeratorAssignsEveryPartitionAndEndsItsReaderOnce(EmbeddedKafka broker) throws Exception {
        Coordinator coordinator = new Coordinator(0);
        try (SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> enumerator =
                     new BoundedKafkaSource<>(kafka(broker)).createEnumerator(coordinator)) {
            enumerator.start();
            assertThat(coordinator.assigned).extracting(KafkaPartitionSplit::getTopicPartition)
                    .containsExactlyInAnyOrder(P0, P1);
            assertThat(coordinator.ended).containsExactly(0);
        }
    }

    @Test
    void aSplitWithoutAStoppingOffsetStopsAtTheEndItFinds() {
        List<KafkaPartitionSplit> added = new ArrayList<>();
        var reader = new BoundedKafkaSource.StoppingReader<>(new Splits(added));

        reader.addSplits(List.of(new KafkaPartitionSplit(P0, 7), new KafkaPartitionSplit(P1, 2, 9)));

        assertThat(added).containsExactly(new KafkaPartitionSplit(P0, 7, KafkaPartitionSplit.LATEST_OFFSET),
                new KafkaPartitionSplit(P1, 2, 9));
    }

    /** The source coordinator's side: registered readers, what it was told to assign and whom it told to end. */
    private static final class Coordinator implements SplitEnumeratorContext<KafkaPartitionSplit> {
        final Map<Integer, ReaderInfo> readers = new TreeMap<>();
        final List<KafkaPartitionSplit> assigned = new ArrayList<>();
        final List<Integer> ended = new ArrayList<>();

        Coordinator(int reader) {
            register(reader);
        }

        void register(int reader) {
            readers.put(reader, new ReaderInfo(reader, "localhost"));
        }

        @Override
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
            try {
                handler.accept(callable.call(), null);
            } catch (Exception e) {
                handler.accept(null, e);
            }
        }

        @Override
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler, long delay, long period) {
            throw new AssertionError("a bounded source discovers its partitions once");
        }

        @Override
        public void assignSplits(SplitsAssignment<KafkaPartitionSplit> assignment) {
            assignment.assignment().values().forEach(assigned::addAll);
        }

        @Override
        public void signalNoMoreSplits(int subtask) {
            ended.add(subtask);
        }

        @Override
        public Map<Integer, ReaderInfo> registeredReaders() {
            return readers;
        }

        @Override
        public int currentParallelism() {
            return readers.size();
        }

        @Override
        public SplitEnumeratorMetricGroup metricGroup() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void runInCoordinatorThread(Runnable runnable) {
            runnable.run();
        }
    }

    /** A reader that only records the splits it is given. */
    private record Splits(List<KafkaPartitionSplit> added) implements SourceReader<String, KafkaPartitionSplit> {
        @Override
        public void addSplits(List<KafkaPartitionSplit> splits) {
            added.addAll(splits);
        }

        @Override
        public void start() {
        }

        @Override
        public InputStatus pollNext(ReaderOutput<String> output) {
            return InputStatus.NOTHING_AVAILABLE;
        }

        @Override
        public List<KafkaPartitionSplit> snapshotState(long checkpointId) {
            return List.of();
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            return new CompletableFuture<>();
        }

        @Override
        public void notifyNoMoreSplits() {
        }

        @Override
        public void close() {
        }
    }
}
