package io.engram.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Checks one input record against the published JSON Schemas (docs/schemas) and the configured size bounds. The
 * gateway client runs it before send and the Flink job runs it on every record it reads, so both sides agree on
 * what is valid. It never throws on bad input: the result is either the parsed payload or a reason and a message.
 */
public final class PayloadValidator {

    /** Size bounds, in UTF-8 bytes. */
    public record Limits(int maxTextBytes, int maxDocumentBytes) implements Serializable {
        public static final Limits DEFAULT = new Limits(64 * 1024, 8 * 1024 * 1024);
    }

    /** The outcome of a validation. */
    public sealed interface Result permits Valid, Invalid {
    }

    /** A payload that passed: its kind, its JSON and its event time. */
    public record Valid(PayloadKind kind, ObjectNode payload, Instant ts) implements Result {
        public String tenantId() {
            return payload.get("tenant_id").asText();
        }
    }

    /** A payload that failed, with the tenant when it could be read (for per-tenant reject counts). */
    public record Invalid(RejectReason reason, String message, String tenantId) implements Result {
    }

    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final int MAX_REPORTED_ERRORS = 3;
    /**
     * The integer fields and their largest value, as the job reads them (a long, or an int). The schemas say the
     * same, but a schema validator compares a JSON number such as 1e300 as a double; this check reads the number
     * as written.
     */
    private static final Map<String, Long> INTEGER_FIELDS = Map.of(
            "seq", Long.MAX_VALUE, "version", Long.MAX_VALUE, "generation", (long) Integer.MAX_VALUE);

    /** The date-time fields, read as the job reads them (the schemas' {@code format} is not asserted). */
    private static final List<String> DATE_FIELDS = List.of("ts", "valid_from", "valid_until", "expires_at");

    private final Limits limits;
    private final Map<PayloadKind, Schema> schemas = new EnumMap<>(PayloadKind.class);

    public PayloadValidator(Limits limits) {
        this.limits = limits;
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
        for (PayloadKind kind : PayloadKind.values()) {
            schemas.put(kind, registry.getSchema(schemaText(kind.schema())));
        }
    }

    /** The published schema of a payload kind, e.g. {@code turn.v1}. */
    public static String schemaText(String schemaName) {
        try (InputStream in = PayloadValidator.class.getResourceAsStream("/engram/schemas/" + schemaName + ".json")) {
            if (in == null) {
                throw new IllegalStateException("schema " + schemaName + " is not on the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Validates a payload about to be sent: its strings as they are, before UTF-8 encoding could alter them
     * ({@link #invalidText}), then its bytes as the pipeline will read them.
     */
    public Result validate(Payload payload) {
        String badText = invalidText(payload.json());
        if (badText != null) {
            return new Invalid(RejectReason.INVALID_TEXT, payload.kind().schema() + ": " + badText,
                    payload.json().path("tenant_id").asText(null));
        }
        return validate(payload.bytes(), payload.kind());
    }

    /**
     * Validates the bytes read from a topic ({@code expected} is the topic's payload kind, or null to accept any
     * of the input kinds).
     */
    public Result validate(byte[] bytes, PayloadKind expected) {
        if (bytes == null || bytes.length == 0) {
            return new Invalid(RejectReason.INVALID_JSON, "empty record", null);
        }
        int maxRecord = (expected == PayloadKind.DOC ? limits.maxDocumentBytes() : limits.maxTextBytes()) + 64 * 1024;
        if (bytes.length > maxRecord) {
            return new Invalid(expected == PayloadKind.DOC ? RejectReason.DOCUMENT_TOO_LARGE : RejectReason.TEXT_TOO_LARGE,
                    "record of " + bytes.length + " bytes is over the bound of " + maxRecord, null);
        }
        String text;
        try {
            text = strictUtf8(bytes);
        } catch (CharacterCodingException e) {
            return new Invalid(RejectReason.INVALID_UTF8, "not UTF-8: " + e.getMessage(), null);
        }
        JsonNode node;
        try {
            node = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            return new Invalid(RejectReason.INVALID_JSON, "invalid JSON: " + e.getOriginalMessage(), null);
        }
        if (!(node instanceof ObjectNode payload)) {
            return new Invalid(RejectReason.NOT_AN_OBJECT, "payload is JSON " + node.getNodeType().name().toLowerCase(Locale.ROOT)
                    + ", not an object", null);
        }
        String tenant = payload.path("tenant_id").isTextual() ? payload.get("tenant_id").asText() : null;
        PayloadKind kind = PayloadKind.ofSchema(payload.path("schema").asText(null));
        if (kind == null) {
            return new Invalid(RejectReason.UNKNOWN_SCHEMA, "unknown schema " + payload.get("schema")
                    + " (expected turn.v1, doc.v1, memory.v1 or forget.v1)", tenant);
        }
        if (expected != null && kind != expected) {
            return new Invalid(RejectReason.WRONG_TOPIC, kind.schema() + " payload on the " + expected.topic() + " topic",
                    tenant);
        }
        List<Error> errors = schemas.get(kind).validate(payload);
        if (!errors.isEmpty()) {
            boolean tenantError = errors.stream().anyMatch(e -> String.valueOf(e.getInstanceLocation()).contains("tenant_id")
                    || String.valueOf(e.getMessage()).contains("tenant_id"));
            // each error names its field: a gateway developer reads "/ts: integer found, string expected"
            String message = errors.stream().limit(MAX_REPORTED_ERRORS)
                    .map(e -> e.getInstanceLocation() + ": " + e.getMessage()).collect(Collectors.joining("; "));
            return new Invalid(tenantError ? RejectReason.INVALID_TENANT : RejectReason.SCHEMA_VIOLATION,
                    kind.schema() + ": " + message, tenantError ? null : tenant);
        }
        for (Map.Entry<String, Long> field : INTEGER_FIELDS.entrySet()) {
            JsonNode value = payload.get(field.getKey());
            if (value != null && !(value.isIntegralNumber() && value.canConvertToLong()
                    && value.longValue() <= field.getValue())) {
                return new Invalid(RejectReason.SCHEMA_VIOLATION, kind.schema() + ": " + field.getKey() + " " + value
                        + " is not an integer from 0 to " + field.getValue(), tenant);
            }
        }
        for (String field : DATE_FIELDS) {
            if (payload.has(field) && instant(payload, field) == null) {
                return new Invalid(RejectReason.SCHEMA_VIOLATION, kind.schema() + ": " + field
                        + " is not an RFC 3339 date-time: " + payload.get(field).asText(), tenant);
            }
        }
        Instant validFrom = instant(payload, "valid_from");
        Instant validUntil = instant(payload, "valid_until");
        if (validFrom != null && validUntil != null && !validUntil.isAfter(validFrom)) {
            return new Invalid(RejectReason.SCHEMA_VIOLATION, kind.schema() + ": valid_until " + validUntil
                    + " is not after valid_from " + validFrom, tenant);
        }
        // a tenant's deletion removes all of its tenant_id: a target naming another tenant is a mistake, refused
        if (kind == PayloadKind.FORGET && "tenant".equals(payload.path("scope").asText())
                && !payload.path("target").asText().equals(tenant)) {
            return new Invalid(RejectReason.SCHEMA_VIOLATION, kind.schema() + ": /target: " + payload.get("target")
                    + " is not the tenant_id \"" + tenant + "\" a forget of scope tenant deletes", tenant);
        }
        String badText = invalidText(payload);
        if (badText != null) {
            return new Invalid(RejectReason.INVALID_TEXT, kind.schema() + ": " + badText, tenant);
        }
        Instant ts = instant(payload, "ts");
        String bounded = kind == PayloadKind.DOC ? "content" : "text";
        int size = payload.path(bounded).asText("").getBytes(StandardCharsets.UTF_8).length;
        int limit = kind == PayloadKind.DOC ? limits.maxDocumentBytes() : limits.maxTextBytes();
        if (size > limit) {
            return new Invalid(kind == PayloadKind.DOC ? RejectReason.DOCUMENT_TOO_LARGE : RejectReason.TEXT_TOO_LARGE,
                    bounded + " of " + size + " bytes is over the bound of " + limit, tenant);
        }
        return new Valid(kind, payload, ts);
    }

    /**
     * Where a payload's strings stop being text, or null when they are all text: the first field name or value
     * holding a lone UTF-16 surrogate (JSON's {@code \\ud800} escape decodes to one; no UTF-8 encodes it, so it
     * would be altered on the way to Kafka or the store) or a NUL character, as "{@code /path: what at character
     * n}" (n counted in Unicode characters from 0). A document's {@code content} with NUL characters is a binary
     * file, refused as {@code document_binary} by the partitioner.
     */
    public static String invalidText(JsonNode payload) {
        return invalidText(payload, "");
    }

    private static String invalidText(JsonNode node, String path) {
        if (node.isTextual()) {
            return invalidText(node.textValue(), path, !path.equals("/content"));
        }
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                String bad = invalidText(node.get(i), path + "/" + i);
                if (bad != null) {
                    return bad;
                }
            }
        }
        for (Map.Entry<String, JsonNode> field : node.properties()) {
            String bad = invalidText(field.getKey(), path + " (a field name)", true);
            bad = bad != null ? bad : invalidText(field.getValue(), path + "/" + field.getKey());
            if (bad != null) {
                return bad;
            }
        }
        return null;
    }

    private static String invalidText(String s, String path, boolean nulRefused) {
        int character = 0;
        for (int i = 0; i < s.length(); i++, character++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++; // a pair: one character
            } else if (Character.isSurrogate(c)) {
                return path + ": a lone surrogate \\u" + Integer.toHexString(c) + " at character " + character;
            } else if (c == 0 && nulRefused) {
                return path + ": a NUL character at character " + character;
            }
        }
        return null;
    }

    /** A date-time field's instant, or null when it is absent or not an RFC 3339 date-time. */
    private static Instant instant(ObjectNode payload, String field) {
        if (!payload.hasNonNull(field)) {
            return null;
        }
        try {
            return OffsetDateTime.parse(payload.get(field).asText()).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static String strictUtf8(byte[] bytes) throws CharacterCodingException {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        return decoder.decode(ByteBuffer.wrap(bytes)).toString();
    }
}
