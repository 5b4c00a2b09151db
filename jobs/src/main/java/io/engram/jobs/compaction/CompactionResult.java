package io.engram.jobs.compaction;

import java.util.List;

/**
 * What one compaction of a session produced, for the store writer and the collapse detector.
 *
 * @param summariesJson     new summaries, each as {@link SummaryCodec} JSON
 * @param compactedTurnIds  raw turns now covered by a summary
 * @param retiredSummaryIds summaries merged into a higher generation
 * @param guardRefusals     merges refused by the generation guard (a merge signal of the cycle)
 * @param floorViolations   merges below the information floor (a merge signal of the cycle)
 */
public record CompactionResult(String tenantId, String sessionId, List<String> summariesJson,
                               List<String> compactedTurnIds, List<String> retiredSummaryIds, int declinedClusters,
                               int guardRefusals, int floorViolations) {
}
