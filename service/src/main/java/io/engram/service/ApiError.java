package io.engram.service;

/** A failure the caller sees: an HTTP status, a stable code and a message (an MCP tool error carries the same). */
final class ApiError extends Exception {
    private static final long serialVersionUID = 1L;
    final int status;
    final String code;
    final long retryAfterSeconds;

    ApiError(int status, String code, String message) {
        this(status, code, message, 0);
    }

    ApiError(int status, String code, String message, long retryAfterSeconds) {
        super(message);
        this.status = status;
        this.code = code;
        this.retryAfterSeconds = retryAfterSeconds;
    }
}
