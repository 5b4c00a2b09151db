package io.engram.jobs.compaction;

import io.engram.jobs.EngramMetrics;
import io.engram.jobs.store.StoreChange;
import io.engram.model.compaction.SessionCompactor.SummaryRecord;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * What a compaction changes in the store: its new summaries (already embedded by the summarizer), the removal
 * of the summaries they merged, and the cycle's merge signals for the collapse detector. Compacted raw turns
 * stay searchable; the summaries' {@code source_refs} name them. Every change keeps the compaction's event time
 * as its record timestamp, by which the writer orders a tenant's sessions; a summary's own time is its last turn's.
 * Counts the summaries written, the clusters the gate declined, the merge signals, and the summaries' mean confidence.
 */
public final class CompactionStoreChanges extends ProcessFunction<CompactionResult, StoreChange> {

    private static final long serialVersionUID = 1L;

    private final boolean metricsEnabled;
    private transient Counter summariesWritten;
    private transient Counter declined;
    private transient Counter guardRefusals;
    private transient Counter floorViolations;
    private transient volatile double confidenceSum;

    public CompactionStoreChanges(boolean metricsEnabled) {
        this.metricsEnabled = metricsEnabled;
    }

    @Override
    public void open(OpenContext context) {
        EngramMetrics metrics = EngramMetrics.of(getRuntimeContext().getMetricGroup(), metricsEnabled);
        summariesWritten = metrics.counter("summaries_written");
        declined = metrics.counter("summaries_declined");
        guardRefusals = metrics.counter("guard_refusals");
        floorViolations = metrics.counter("floor_violations");
        metrics.gauge("summary_confidence_mean", () -> summariesWritten.getCount() == 0 ? 0.0
                : confidenceSum / summariesWritten.getCount());
    }

    @Override
    public void processElement(CompactionResult result, Context ctx, Collector<StoreChange> out) {
        summariesWritten.inc(result.summaries().size());
        declined.inc(result.declinedClusters());
        guardRefusals.inc(result.guardRefusals());
        floorViolations.inc(result.floorViolations());
        result.summaries().forEach(s -> confidenceSum += s.score().confidence());
        long compactedAt = ctx.timestamp() == null ? 0 : ctx.timestamp(); // the compaction timer's time
        for (SummaryRecord s : result.summaries()) {
            out.collect(new StoreChange.Upsert(MemoryRecord.of(s.id(), result.tenantId(), RecordType.SUMMARY, s.text(), s.to())
                    .embedding(s.embedding()).provenance(s.sourceRefs(), s.generation())
                    .quality(s.score().confidence(), s.score().decayRate()).sourcesFrom(s.from()).session(result.sessionId())
                    .user(result.userId())
                    .tokens(s.summaryTokens()).build(), null));
        }
        for (String retired : result.retiredSummaryIds()) {
            out.collect(new StoreChange.Delete(result.tenantId(), retired, RecordType.SUMMARY, result.sessionId(),
                    compactedAt, null));
        }
        if (result.floorViolations() > 0 || result.guardRefusals() > 0) {
            out.collect(new StoreChange.MergeSignals(result.tenantId(), result.sessionId(), compactedAt,
                    result.floorViolations(), result.guardRefusals(), null));
        }
    }
}
