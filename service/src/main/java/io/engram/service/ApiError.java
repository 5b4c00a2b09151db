package io.engram.service;

import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A failure the caller sees: an HTTP status, a stable code and a message. The HTTP API answers it as
 * {@code {"error": {"code", "message"}}}, an MCP tool as a result with {@code isError} and the same body. Every
 * other failure becomes one of these in {@link #of(Exception, String)}, the one mapping both transports use.
 */
final class ApiError extends Exception {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ApiError.class);
    final int status;
    final String code;
    final long retryAfterSeconds;
    /** Fields the error's JSON carries besides its code and message (a quota's name, limit and usage). */
    final java.util.Map<String, Object> details = new java.util.LinkedHashMap<>();

    ApiError(int status, String code, String message) {
        this(status, code, message, 0);
    }

    ApiError(int status, String code, String message, long retryAfterSeconds) {
        super(message);
        this.status = status;
        this.code = code;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** This error, its JSON carrying {@code name}: {@code value} too. */
    ApiError with(String name, Object value) {
        details.put(name, value);
        return this;
    }

    static ApiError invalid(String message) {
        return new ApiError(400, "invalid_request", message);
    }

    static ApiError notFound(String message) {
        return new ApiError(404, "not_found", message);
    }

    static ApiError forbidden(String message) {
        return new ApiError(403, "forbidden", message);
    }

    /**
     * What the caller sees of any failure during {@code during} (a request or a tool call): an ApiError as it
     * is, PostgreSQL's as 503 (the caller may retry), anything else as 500, logged with its stack trace.
     */
    static ApiError of(Exception failure, String during) {
        if (failure instanceof ApiError known) {
            return known;
        }
        if (failure instanceof SQLException) {
            LOG.warn("PostgreSQL failed during {}", during, failure);
            return new ApiError(503, "postgres_unavailable", "the forget log is unavailable; retry");
        }
        LOG.error("{} failed", during, failure);
        return new ApiError(500, "internal_error", "the request failed; see the server log");
    }
}
