package io.engram.jobs.ingest;

import io.engram.client.PayloadKind;

/**
 * One record read from an input topic after validation: a valid payload of one of the input kinds (its JSON
 * text, tenant and event time) or a reject. The source coordinates travel with it so a later stage (a document
 * over its rule budget) can still reject it with where it came from; the original bytes are kept for rejects
 * and documents only.
 */
public record Ingested(PayloadKind kind, String payloadJson, String tenantId, long tsMillis, String sourceTopic,
                       int partition, long offset, byte[] original, String reasonCode, String message) {

    public boolean rejected() {
        return reasonCode != null;
    }

    public RejectRecord toReject() {
        return new RejectRecord(reasonCode, message, tenantId, sourceTopic, partition, offset, original);
    }
}
