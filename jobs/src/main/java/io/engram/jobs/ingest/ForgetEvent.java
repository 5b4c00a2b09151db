package io.engram.jobs.ingest;

import io.engram.model.retrieval.ForgetScope;
import io.engram.store.RecordIds;
import java.util.List;

/**
 * A validated {@code forget.v1} record: what to forget of a tenant, and when it was asked (event time). Records
 * of that scope written up to that time are forgotten even when they arrive after the request.
 */
public record ForgetEvent(String tenantId, String forgetId, ForgetScope scope, String target, long requestedAtMillis) {

    /**
     * Whether this forget covers a record of {@code recordTenant} with these coordinates, written at
     * {@code tsMillis}: for one record, the record itself or one built from it (its {@code sourceRefs} name the
     * record, or, for a summary of the forgotten turn's session, the turn's id); for the tenant, any of its records.
     */
    public boolean covers(String recordTenant, String recordId, String sessionId, String userId,
                          List<String> sourceRefs, long tsMillis) {
        if (!tenantId.equals(recordTenant) || tsMillis > requestedAtMillis) {
            return false;
        }
        return switch (scope) {
            case MEMORY -> target.equals(recordId) || sourceRefs.contains(target)
                    || RecordIds.memoryIdOf(tenantId, target).filter(sourceRefs::contains).isPresent() || (sessionId != null
                    && RecordIds.turnIdOf(tenantId, sessionId, target).filter(sourceRefs::contains).isPresent());
            case SESSION -> target.equals(sessionId);
            case USER -> target.equals(userId);
            case TENANT -> true;
        };
    }
}
