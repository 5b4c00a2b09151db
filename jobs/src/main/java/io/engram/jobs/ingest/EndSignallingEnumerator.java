package io.engram.jobs.ingest;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.connector.kafka.source.enumerator.KafkaSourceEnumState;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;

/**
 * A bounded Kafka enumerator that tells its readers there are no more splits also when its one partition
 * discovery finds nothing new. The Kafka enumerator signals it only from the step that assigns newly found
 * partitions; a restored one whose checkpoint had assigned every partition skips that step, so its readers wait
 * at their end offsets forever. Its discovery is the first call it schedules ({@link Context} watches it): when
 * that call's handler schedules no split initialisation, nothing new exists and every registered reader, and
 * every reader that registers later, is signalled — what the Kafka enumerator does itself once it has assigned
 * the partitions it found.
 */
final class EndSignallingEnumerator implements SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> {

    private final SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> enumerator;
    private final Context context;

    EndSignallingEnumerator(SplitEnumerator<KafkaPartitionSplit, KafkaSourceEnumState> enumerator, Context context) {
        this.enumerator = enumerator;
        this.context = context;
    }

    @Override
    public void start() {
        enumerator.start();
    }

    @Override
    public void addReader(int subtaskId) {
        enumerator.addReader(subtaskId);
        if (context.nothingNewFound) {
            context.signalNoMoreSplits(subtaskId);
        }
    }

    @Override
    public void addSplitsBack(List<KafkaPartitionSplit> splits, int subtaskId) {
        enumerator.addSplitsBack(splits, subtaskId);
        // the Kafka enumerator hands them back at once to a reader already registered again, and then signals
        if (context.nothingNewFound && context.registeredReaders().containsKey(subtaskId)) {
            context.signalNoMoreSplits(subtaskId);
        }
    }

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {
        enumerator.handleSplitRequest(subtaskId, requesterHostname);
    }

    @Override
    public KafkaSourceEnumState snapshotState(long checkpointId) throws Exception {
        return enumerator.snapshotState(checkpointId);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        enumerator.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void handleSourceEvent(int subtaskId, SourceEvent sourceEvent) {
        enumerator.handleSourceEvent(subtaskId, sourceEvent);
    }

    @Override
    public void close() throws IOException {
        enumerator.close();
    }

    /** The coordinator's context as the Kafka enumerator sees it, watching what its discovery schedules next. */
    static final class Context implements SplitEnumeratorContext<KafkaPartitionSplit> {

        private final SplitEnumeratorContext<KafkaPartitionSplit> context;
        private int scheduled;
        /** Set once the discovery's handler has returned without scheduling a split initialisation. */
        private boolean nothingNewFound;

        Context(SplitEnumeratorContext<KafkaPartitionSplit> context) {
            this.context = context;
        }

        @Override
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
            boolean discovery = scheduled++ == 0;
            context.callAsync(callable, !discovery ? handler : (result, failure) -> {
                int before = scheduled;
                handler.accept(result, failure);
                if (failure == null && scheduled == before) {
                    nothingNewFound = true;
                    context.registeredReaders().keySet().forEach(context::signalNoMoreSplits);
                }
            });
        }

        @Override
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler, long initialDelay, long period) {
            scheduled++; // periodic discovery: an unbounded source's, never wrapped here
            context.callAsync(callable, handler, initialDelay, period);
        }

        @Override
        public SplitEnumeratorMetricGroup metricGroup() {
            return context.metricGroup();
        }

        @Override
        public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
            context.sendEventToSourceReader(subtaskId, event);
        }

        @Override
        public void sendEventToSourceReader(int subtaskId, int attemptNumber, SourceEvent event) {
            context.sendEventToSourceReader(subtaskId, attemptNumber, event);
        }

        @Override
        public int currentParallelism() {
            return context.currentParallelism();
        }

        @Override
        public Map<Integer, ReaderInfo> registeredReaders() {
            return context.registeredReaders();
        }

        @Override
        public Map<Integer, Map<Integer, ReaderInfo>> registeredReadersOfAttempts() {
            return context.registeredReadersOfAttempts();
        }

        @Override
        public void assignSplits(SplitsAssignment<KafkaPartitionSplit> assignment) {
            context.assignSplits(assignment);
        }

        @Override
        public void signalNoMoreSplits(int subtask) {
            context.signalNoMoreSplits(subtask);
        }

        @Override
        public void runInCoordinatorThread(Runnable runnable) {
            context.runInCoordinatorThread(runnable);
        }

        @Override
        public void setIsProcessingBacklog(boolean isProcessingBacklog) {
            context.setIsProcessingBacklog(isProcessingBacklog);
        }
    }
}
