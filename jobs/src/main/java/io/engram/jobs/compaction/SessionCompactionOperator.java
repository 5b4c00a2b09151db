package io.engram.jobs.compaction;

import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;

/**
 * Runs the {@link SessionCompactionFunction} and never tells the operators downstream that it is idle.
 *
 * <p>Compaction's output rejoins a direct path from the same source at the embedder (the source's memories and
 * turn records go there unkeyed). Announced idle, compaction's channel would be left out of the embedder's
 * watermark; when the source resumed, its watermark (at a draining stop the final one) would reach the embedder
 * on the direct path before compaction's timers had run, and the summaries they then emit would arrive behind
 * the watermark, after the writer and the detector had fired their timers for that time — in the
 * standalone-cluster kill test, the final idle session's summary was never written. Staying active, compaction
 * holds the embedder's watermark back until its own timers have run. Its own watermark still follows only the
 * active sources.
 */
public final class SessionCompactionOperator extends KeyedProcessOperator<String, TurnEvent, CompactionResult> {

    private static final long serialVersionUID = 1L;

    public SessionCompactionOperator(SessionCompactionFunction compaction) {
        super(compaction);
    }

    @Override
    public void processWatermarkStatus(WatermarkStatus status) throws Exception {
        if (status.isActive()) {
            super.processWatermarkStatus(status);
        }
    }
}
