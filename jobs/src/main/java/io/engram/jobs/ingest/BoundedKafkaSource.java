package io.engram.jobs.ingest;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumState;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A bounded {@link KafkaSource} that also ends after a restore. Two gaps of flink-connector-kafka 5.0.0 keep a
 * restored bounded source running forever, its readers idle at their end offsets:
 * <ul>
 *   <li>the restored enumerator signals "no more splits" only when its discovery finds a partition it has not
 *   assigned yet, which never happens when the checkpoint's enumerator had assigned them all (FLINK-33466,
 *   FLINK-31006): {@link EndSignallingEnumerator} signals it then;</li>
 *   <li>a split restored from an unbounded run's checkpoint has no stopping offset: the reader gives it the end
 *   offset it finds when the split is added ({@link KafkaPartitionSplit#LATEST_OFFSET}, the last committed record
 *   for a {@code read_committed} reader), so a bounded run restoring it drains what is there and stops.</li>
 * </ul>
 * Everything else is the wrapped source's: its splits, state and serializers, so checkpoints stay compatible
 * both ways.
 */
public final class BoundedKafkaSource<T>
        implements Source<T, KafkaPartitionSplit, KafkaSourceEnumState>, ResultTypeQueryable<T> {

    private static final long serialVersionUID = 1L;

    private final KafkaSource<T> kafka;

    public BoundedKafkaSource(KafkaSource<T> kafka) {
        if (kafka.getBoundedness() != Boundedness.BOUNDED) {
            throw new IllegalArgumentException("a bounded Kafka source is needed (KafkaSourceBuilder.setBounded)");
        }
        this.kafka = kafka;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> createEnumerator(
            SplitEnumeratorContext<KafkaPartitionSplit> context) throws Exception {
        EndSignallingEnumerator.Context signalling = new EndSignallingEnumerator.Context(context);
        return new EndSignallingEnumerator(kafka.createEnumerator(signalling), signalling);
    }

    @Override
    public SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> restoreEnumerator(
            SplitEnumeratorContext<KafkaPartitionSplit> context, KafkaSourceEnumState checkpoint) throws Exception {
        EndSignallingEnumerator.Context signalling = new EndSignallingEnumerator.Context(context);
        return new EndSignallingEnumerator(kafka.restoreEnumerator(signalling, checkpoint), signalling);
    }

    @Override
    public SourceReader<T, KafkaPartitionSplit> createReader(SourceReaderContext context) throws Exception {
        return new StoppingReader<>(kafka.createReader(context));
    }

    @Override
    public SimpleVersionedSerializer<KafkaPartitionSplit> getSplitSerializer() {
        return kafka.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<KafkaSourceEnumState> getEnumeratorCheckpointSerializer() {
        return kafka.getEnumeratorCheckpointSerializer();
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return kafka.getProducedType();
    }

    /** A split without a stopping offset (from an unbounded run's checkpoint) stops at the end it finds. */
    static KafkaPartitionSplit withEnd(KafkaPartitionSplit split) {
        return split.getStoppingOffset().isPresent() ? split
                : new KafkaPartitionSplit(split.getTopicPartition(), split.getStartingOffset(),
                        KafkaPartitionSplit.LATEST_OFFSET);
    }

    /** The Kafka reader, with every split it is given bounded by {@link #withEnd}. */
    static final class StoppingReader<T> implements SourceReader<T, KafkaPartitionSplit> {

        private final SourceReader<T, KafkaPartitionSplit> reader;

        StoppingReader(SourceReader<T, KafkaPartitionSplit> reader) {
            this.reader = reader;
        }

        @Override
        public void addSplits(List<KafkaPartitionSplit> splits) {
            reader.addSplits(splits.stream().map(BoundedKafkaSource::withEnd).toList());
        }

        @Override
        public void start() {
            reader.start();
        }

        @Override
        public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
            return reader.pollNext(output);
        }

        @Override
        public List<KafkaPartitionSplit> snapshotState(long checkpointId) {
            return reader.snapshotState(checkpointId);
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            return reader.isAvailable();
        }

        @Override
        public void notifyNoMoreSplits() {
            reader.notifyNoMoreSplits();
        }

        @Override
        public void handleSourceEvents(SourceEvent event) {
            reader.handleSourceEvents(event);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            reader.notifyCheckpointComplete(checkpointId);
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) throws Exception {
            reader.notifyCheckpointAborted(checkpointId);
        }

        @Override
        public void pauseOrResumeSplits(Collection<String> toPause, Collection<String> toResume) {
            reader.pauseOrResumeSplits(toPause, toResume);
        }

        @Override
        public void close() throws Exception {
            reader.close();
        }
    }
}
