package io.engram.service;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.client.Importer;
import io.engram.model.retrieval.RecordType;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The checks of a request's arguments, a JSON body of the HTTP API or an MCP tool's arguments alike: each
 * failure a 400 {@code invalid_request} naming the argument.
 */
final class Arguments {

    static final int MAX_QUERY_CHARS = 4096;

    private Arguments() {
    }

    static String requiredText(JsonNode body, String field) throws ApiError {
        String value = optionalText(body, field);
        if (value == null || value.isBlank()) {
            throw ApiError.invalid(field + " is required");
        }
        return value;
    }

    static String optionalText(JsonNode body, String field) throws ApiError {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw ApiError.invalid(field + " must be a string");
        }
        if (value.asText().length() > MAX_QUERY_CHARS) {
            throw ApiError.invalid(field + " is longer than " + MAX_QUERY_CHARS + " characters");
        }
        return value.asText();
    }

    /** An optional boolean; {@code fallback} when absent. */
    static boolean bool(JsonNode body, String field, boolean fallback) throws ApiError {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) {
            return fallback;
        }
        if (!value.isBoolean()) {
            throw ApiError.invalid(field + " must be true or false");
        }
        return value.asBoolean();
    }

    /** An optional RFC 3339 date-time ({@code as_of}); {@code fallback} when absent. */
    static Instant instant(JsonNode body, String field, Instant fallback) throws ApiError {
        String value = optionalText(body, field);
        if (value == null) {
            return fallback;
        }
        try {
            return OffsetDateTime.parse(value).toInstant();
        } catch (DateTimeParseException e) {
            throw ApiError.invalid(field + " must be an ISO-8601 date-time such as 2026-03-01T00:00:00Z");
        }
    }

    /** An integer from {@code min} to {@code max}; {@code fallback} when absent, required when that is null. */
    static int boundedInt(JsonNode body, String field, int min, int max, Integer fallback) throws ApiError {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) {
            if (fallback == null) {
                throw ApiError.invalid(field + " is required");
            }
            return fallback;
        }
        if (!value.canConvertToInt() || !value.isIntegralNumber() || value.asInt() < min || value.asInt() > max) {
            throw ApiError.invalid(field + " must be an integer from " + min + " to " + max);
        }
        return value.asInt();
    }

    /** A query string's {@code limit}: {@code fallback} when absent, else an integer from 1 to {@code max}. */
    static int limit(Map<String, String> query, int fallback, int max) throws ApiError {
        try {
            int limit = Integer.parseInt(query.getOrDefault("limit", String.valueOf(fallback)));
            if (limit >= 1 && limit <= max) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // the message below
        }
        throw ApiError.invalid("limit must be an integer from 1 to " + max);
    }

    /** An optional array of record type labels; empty when absent. */
    static Set<RecordType> types(JsonNode body, String field) throws ApiError {
        Set<RecordType> types = EnumSet.noneOf(RecordType.class);
        JsonNode list = body.get(field);
        if (list != null && !list.isNull()) {
            if (!list.isArray()) {
                throw ApiError.invalid(field + " must be an array of record types");
            }
            for (JsonNode t : list) {
                types.add(recordType(t.asText()));
            }
        }
        return types;
    }

    /** A comma list of record type labels (a query string's); empty when absent. */
    static Set<RecordType> recordTypes(String labels) throws ApiError {
        Set<RecordType> types = EnumSet.noneOf(RecordType.class);
        if (labels != null) {
            for (String label : labels.split(",", -1)) {
                types.add(recordType(label.strip()));
            }
        }
        return types;
    }

    static RecordType recordType(String label) throws ApiError {
        try {
            return RecordType.ofLabel(label);
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid("unknown record type: " + label);
        }
    }

    /** A query string's {@code format} of an import: {@code engram} when absent, else {@code engram} or {@code mem0}. */
    static Importer.Format importFormat(Map<String, String> query) throws ApiError {
        try {
            return Importer.Format.named(query.getOrDefault("format", "engram"));
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid("format: " + e.getMessage());
        }
    }
}
