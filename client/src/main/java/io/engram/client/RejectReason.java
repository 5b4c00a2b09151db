package io.engram.client;

import java.util.Locale;

/**
 * Why an input was rejected: the {@code reason_code} of {@code engram.rejects.v1} (docs/schemas/reject.v1.json); or,
 * for a {@link #warning}, what changed in an input that was accepted.
 */
public enum RejectReason {
    INVALID_UTF8, INVALID_JSON, NOT_AN_OBJECT, UNKNOWN_SCHEMA, WRONG_TOPIC, SCHEMA_VIOLATION, INVALID_TENANT,
    TEXT_TOO_LARGE, DOCUMENT_TOO_LARGE, DOCUMENT_NOT_UTF8, DOCUMENT_BINARY, DOCUMENT_TOO_DEEP,
    /** A string holding a lone UTF-16 surrogate or a NUL character: not text any store or model takes as is. */
    INVALID_TEXT,
    /** A document version whose hard rules exceed α1·τ went live with its weakest hard rules as soft rules. */
    HARD_RULES_DEMOTED;

    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether a record of this code is a warning about an accepted input, not a rejection. */
    public boolean warning() {
        return this == HARD_RULES_DEMOTED;
    }

    /** The severity a record of this code carries: {@code warning} or {@code error}. */
    public static String severityOf(String code) {
        for (RejectReason reason : values()) {
            if (reason.code().equals(code)) {
                return reason.warning() ? "warning" : "error";
            }
        }
        return "error";
    }
}
