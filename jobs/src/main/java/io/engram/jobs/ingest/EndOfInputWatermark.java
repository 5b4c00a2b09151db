package io.engram.jobs.ingest;

import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;

/**
 * Passes records through and, when its input ends (a bounded source's end, or a draining stop), forwards the
 * end of event time even if the source was idle. Flink 2.2 drops the final watermark a draining source emits
 * while its announced status is idle (FLINK-40499), so the event-time timers behind it (idle sessions'
 * compaction, the writer's ordered compaction changes, quiet-gap cycle closes) would not fire before the final
 * savepoint. Chained right after the source; a stop without drain does not end the input, so nothing is sent.
 */
public final class EndOfInputWatermark<T> extends AbstractStreamOperator<T>
        implements OneInputStreamOperator<T, T>, BoundedOneInput {

    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(StreamRecord<T> element) {
        output.collect(element);
    }

    @Override
    public void endInput() {
        output.emitWatermarkStatus(WatermarkStatus.ACTIVE); // an idle output drops watermarks
        output.emitWatermark(Watermark.MAX_WATERMARK);
    }
}
