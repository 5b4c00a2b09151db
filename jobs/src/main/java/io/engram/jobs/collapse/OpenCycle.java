package io.engram.jobs.collapse;

/**
 * A tenant's cycle while it is open: what it did so far and when it would close for quiet. Public because Flink
 * serializes keyed state as a POJO only for a public type.
 *
 * @param acceptedActions writes the store took in the cycle (upserts, and deletes of records it held)
 */
public record OpenCycle(String cycleId, long lastWriteMillis, long acceptedActions, long mergeFloorViolations,
                        long generationGuardRefusals, long quietTimer) {
}
