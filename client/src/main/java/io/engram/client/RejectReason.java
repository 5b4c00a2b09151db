package io.engram.client;

import java.util.Locale;

/** Why an input was rejected: the {@code reason_code} of {@code engram.rejects.v1} (docs/schemas/reject.v1.json). */
public enum RejectReason {
    INVALID_UTF8, INVALID_JSON, NOT_AN_OBJECT, UNKNOWN_SCHEMA, WRONG_TOPIC, SCHEMA_VIOLATION, INVALID_TENANT,
    TEXT_TOO_LARGE, DOCUMENT_TOO_LARGE, DOCUMENT_NOT_UTF8, DOCUMENT_BINARY, DOCUMENT_TOO_DEEP, HARD_RULE_BUDGET_OVERFLOW;

    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }
}
