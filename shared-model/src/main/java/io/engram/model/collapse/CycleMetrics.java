package io.engram.model.collapse;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One row of {@code cycle_metrics}: what a tenant's store looked like when a cycle closed, and what the cycle
 * did to it. {@code canaryRanks} is each canary's id and 0-based rank of first hit (−1 for a miss).
 */
public record CycleMetrics(String tenantId, String cycleId, Instant ts, String closeReason, String canarySetId,
                           int canaryCount, double meanRecall, double meanNdcg, double meanMrr,
                           List<Map.Entry<String, Integer>> canaryRanks, long storeTotal,
                           Map<String, Long> storeByType, double distinctContentRatio, double meanBigramDiversity,
                           long overGenerationCount, long acceptedActions, long mergeFloorViolations,
                           long generationGuardRefusals, List<String> alerts) {

    public CycleMetrics {
        canaryRanks = List.copyOf(canaryRanks);
        storeByType = Map.copyOf(storeByType);
        alerts = List.copyOf(alerts);
    }

    /** The same row with the alerts that fired on it. */
    public CycleMetrics withAlerts(List<String> fired) {
        return new CycleMetrics(tenantId, cycleId, ts, closeReason, canarySetId, canaryCount, meanRecall, meanNdcg,
                meanMrr, canaryRanks, storeTotal, storeByType, distinctContentRatio, meanBigramDiversity,
                overGenerationCount, acceptedActions, mergeFloorViolations, generationGuardRefusals, fired);
    }
}
