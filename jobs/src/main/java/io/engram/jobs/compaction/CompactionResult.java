package io.engram.jobs.compaction;

import io.engram.jobs.serde.SerializerTypeInfo;
import io.engram.model.compaction.SessionCompactor.SummaryRecord;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * What one compaction of a session produced, for the store writer and the collapse detector.
 *
 * @param userId            the session's user, when its turns name one
 * @param summaries         new summaries, embedded
 * @param compactedTurnIds  raw turns now covered by a summary
 * @param retiredSummaryIds summaries merged into a higher generation
 * @param guardRefusals     merges refused by the generation guard (a merge signal of the cycle)
 * @param floorViolations   merges below the information floor (a merge signal of the cycle)
 */
public record CompactionResult(String tenantId, String sessionId, String userId, List<SummaryRecord> summaries,
                               List<String> compactedTurnIds, List<String> retiredSummaryIds, int declinedClusters,
                               int guardRefusals, int floorViolations) {

    /** The type of a stream of compaction results. */
    public static final TypeInformation<CompactionResult> TYPE =
            SerializerTypeInfo.of(CompactionResult.class, CompactionResultSerializer.INSTANCE);

    public CompactionResult {
        summaries = List.copyOf(summaries);
        compactedTurnIds = List.copyOf(compactedTurnIds);
        retiredSummaryIds = List.copyOf(retiredSummaryIds);
    }
}
