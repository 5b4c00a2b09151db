package io.engram.jobs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * An operator that works on batches of records: a batch is handed to {@link #process} when the subclass says it
 * is full, {@code maxDelay} after its first record, before a watermark or a checkpoint barrier is forwarded, and
 * at the end of input. So nothing buffered is missing from a checkpoint and no watermark overtakes a buffered
 * record. Runs on the task thread only (timers included), so no locking.
 */
public abstract class BatchingOperator<T> extends AbstractStreamOperator<T> implements OneInputStreamOperator<T, T>,
        BoundedOneInput {

    private static final long serialVersionUID = 1L;

    private final long maxDelayMillis;
    private transient List<StreamRecord<T>> batch;
    private transient boolean flushScheduled;

    protected BatchingOperator(Duration maxDelay) {
        this.maxDelayMillis = maxDelay.toMillis();
    }

    @Override
    public void open() throws Exception {
        super.open();
        batch = new ArrayList<>();
    }

    /** Adds a record (a copy of its envelope: the runtime may reuse it) and flushes if the batch is full. */
    protected final void add(T value, StreamRecord<?> envelope) {
        batch.add(envelope.hasTimestamp() ? new StreamRecord<>(value, envelope.getTimestamp()) : new StreamRecord<>(value));
        if (countAndCheckFull(value)) {
            flush();
        } else if (!flushScheduled) {
            flushScheduled = true;
            long at = getProcessingTimeService().getCurrentProcessingTime() + maxDelayMillis;
            getProcessingTimeService().registerTimer(at, time -> flush());
        }
    }

    /** Called after each {@link #add}: counts {@code added} into the batch's size and says whether the batch must go. */
    protected abstract boolean countAndCheckFull(T added);

    /** Works on the batch and emits its results; the batch is cleared afterwards. */
    protected abstract void process(List<StreamRecord<T>> records) throws Exception;

    protected final void flush() {
        flushScheduled = false;
        if (batch.isEmpty()) {
            return;
        }
        try {
            process(batch);
        } catch (Exception e) {
            throw e instanceof RuntimeException re ? re : new IllegalStateException(e);
        }
        batch.clear();
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        flush();
        super.processWatermark(mark);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        flush();
        super.prepareSnapshotPreBarrier(checkpointId);
    }

    @Override
    public void endInput() {
        flush();
    }
}
