package io.engram.jobs.collapse;

import io.engram.model.collapse.CanarySet;
import java.time.Instant;

/** A canary of a tenant's newly minted set: one {@code canary_queries} row. */
public record MintedCanary(String tenantId, String canarySetId, CanarySet.Canary canary, Instant createdAt) {
}
