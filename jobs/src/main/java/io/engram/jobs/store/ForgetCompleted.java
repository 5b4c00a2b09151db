package io.engram.jobs.store;

/**
 * A forget the writer has applied: what it asked, when, and how many records it deleted from OpenSearch (the
 * {@code forgets} table's row; a replay after a restore deletes nothing more and keeps the first count).
 */
public record ForgetCompleted(String tenantId, String forgetId, String scope, String target, long requestedAtMillis,
                              long completedAtMillis, long recordsRemoved) {
}
