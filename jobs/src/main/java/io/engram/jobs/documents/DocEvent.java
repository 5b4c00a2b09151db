package io.engram.jobs.documents;

/**
 * A validated {@code doc.v1} record, with where it came from and its original bytes (a version over its rule
 * budget is rejected here, after validation).
 */
public record DocEvent(String tenantId, String agentId, String path, String docClass, long version, String content,
                       boolean deleted, long tsMillis, String sourceTopic, int partition, long offset,
                       byte[] original) {

    /** The key of the partition operator: one document of one agent of one tenant. */
    public String documentKey() {
        return tenantId + "/" + agentId + "/" + path;
    }
}
