package io.engram.jobs.compaction;

import io.engram.client.Payload;

/**
 * A validated {@code turn.v1} record: what the compaction operator consumes.
 *
 * @param tsMillis event time, epoch milliseconds
 */
public record TurnEvent(String tenantId, String sessionId, String userId, String turnId, long seq, String role,
                        String text, long tsMillis) {

    /** The key of the compaction operator: one session of one tenant. */
    public String sessionKey() {
        return Payload.sessionKey(tenantId, sessionId);
    }
}
