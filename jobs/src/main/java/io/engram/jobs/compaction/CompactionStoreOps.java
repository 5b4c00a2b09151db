package io.engram.jobs.compaction;

import io.engram.jobs.store.StoreOp;
import io.engram.model.compaction.SessionCompactor.SummaryRecord;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * What a compaction changes in the store: its new summaries (already embedded by the summarizer), the removal
 * of the summaries they merged, and the cycle's merge signals for the collapse detector. Compacted raw turns
 * stay searchable; the summaries' {@code source_refs} name them. Every change keeps the compaction's event time
 * as its record timestamp, by which the writer orders a tenant's sessions; a summary's own time is its last turn's.
 */
public final class CompactionStoreOps extends ProcessFunction<CompactionResult, StoreOp> {

    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(CompactionResult result, Context ctx, Collector<StoreOp> out) {
        long compactedAt = ctx.timestamp() == null ? 0 : ctx.timestamp(); // the compaction timer's time
        for (SummaryRecord s : result.summaries()) {
            out.collect(StoreOp.upsert(MemoryRecord.of(s.id(), result.tenantId(), RecordType.SUMMARY, s.text(), s.to())
                    .embedding(s.embedding()).provenance(s.sourceRefs(), s.generation())
                    .quality(s.score().confidence(), s.score().decayRate()).session(result.sessionId())
                    .user(result.userId())
                    .tokens(s.summaryTokens()).build(), null));
        }
        for (String retired : result.retiredSummaryIds()) {
            out.collect(StoreOp.delete(result.tenantId(), retired, RecordType.SUMMARY, result.sessionId(), compactedAt,
                    null));
        }
        if (result.floorViolations() > 0 || result.guardRefusals() > 0) {
            out.collect(StoreOp.mergeSignals(result.tenantId(), result.sessionId(), compactedAt,
                    result.floorViolations(), result.guardRefusals()));
        }
    }
}
