package io.engram.service;

import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;

/**
 * Where the service records what it was asked to forget, and what a caller did that others must be able to
 * check (a write naming another tenant, a forget): the {@code forgets} and {@code api_audit} tables
 * ({@link ServiceDatabase}). The pipeline's writer completes a forget's row once OpenSearch no longer has it.
 */
interface ForgetLog {

    /** A forget as the log holds it; {@code completedAt} and {@code recordsRemoved} are null while it runs. */
    record Status(String forgetId, String scope, String target, Instant requestedAt, Instant completedAt,
                  Long recordsRemoved) {
    }

    /** Records a forget before it is sent (a second call with the same ids changes nothing). */
    void requested(String tenantId, String forgetId, String scope, String target, Instant at) throws SQLException;

    /** Adds a line to the audit log. */
    void audit(String tenantId, String action, String detail) throws SQLException;

    /** The tenant's forget of this id, or empty when it has none. */
    Optional<Status> status(String tenantId, String forgetId) throws SQLException;
}
