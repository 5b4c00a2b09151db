package io.engram.jobs.compaction;

import io.engram.jobs.ingest.ForgetEvent;
import java.util.List;
import org.apache.flink.streaming.api.operators.co.CoBroadcastWithKeyedOperator;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;

/**
 * Runs the {@link SessionCompactionFunction} over the keyed turns and the broadcast forgets, and never tells the
 * operators downstream that it is idle.
 *
 * <p>Invariant: no summary reaches the embedder behind the embedder's watermark. Compaction's output rejoins a
 * direct path from the same source at the embedder (memories and turn records go there unkeyed). An idle
 * channel is left out of the embedder's watermark, so a watermark arriving on the direct path (at a draining
 * stop, the final one) could pass before compaction's timers for that time had run and emitted. Staying active,
 * compaction holds the embedder's watermark back until its own timers have run. Its own watermark still follows
 * only the active sources.
 */
public final class SessionCompactionOperator
        extends CoBroadcastWithKeyedOperator<String, TurnEvent, ForgetEvent, CompactionResult> {

    private static final long serialVersionUID = 1L;

    public SessionCompactionOperator(SessionCompactionFunction compaction) {
        super(compaction, List.of(SessionCompactionFunction.FORGETS));
    }

    @Override
    protected void processWatermarkStatus(WatermarkStatus status, int input) throws Exception {
        if (status.isActive()) {
            super.processWatermarkStatus(status, input);
        }
    }
}
