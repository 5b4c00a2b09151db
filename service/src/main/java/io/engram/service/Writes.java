package io.engram.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.client.InvalidPayloadException;
import io.engram.client.Payload;
import io.engram.client.PayloadKind;
import io.engram.model.retrieval.RecordType;
import io.engram.store.RecordIds;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write path: one record or {@code {"records": [...]}}, each completed with the contract's fixed fields and
 * a caller's defaults, validated as the pipeline validates it; the valid ones sent to {@code publisher} and
 * acknowledged by Kafka before the answer. Ids are the records' ids in the store, so a retry rewrites. A record
 * naming another tenant refuses the request and is written to {@code audit}; at most {@code maxBatch} records.
 */
record Writes(Publisher publisher, ForgetLog audit, Clock clock, int maxBatch) {

    /** A rejected record of a batch: its index, the validator's reason code and why. */
    record Rejection(int index, String code, String message) {
    }

    /** What a write did: the store ids of the accepted records, in order, the rejected ones, the accepted text's bytes. */
    record Written(List<String> accepted, List<Rejection> rejected, long acceptedBytes) {
    }

    /** Refuses a write of this many records and bytes of text before anything of it is sent (a quota). */
    interface Admission {
        void admit(int records, long textBytes) throws ApiError, SQLException;
    }

    private static final long KAFKA_ACK_SECONDS = 15;
    private static final Logger LOG = LoggerFactory.getLogger(Writes.class);

    Written write(String tenant, PayloadKind kind, JsonNode body, Admission admission) throws ApiError, SQLException {
        List<JsonNode> items = items(body);
        for (JsonNode item : items) {
            JsonNode named = item.get("tenant_id");
            if (named != null && !named.asText().equals(tenant)) {
                audit.audit(tenant, "cross_tenant", "POST " + kind.topic() + " named tenant " + named);
                throw ApiError.forbidden("the API key's tenant is " + tenant + "; a record may not name another");
            }
        }
        admission.admit(items.size(), items.stream().mapToLong(Writes::textBytes).sum());
        Instant now = clock.instant();
        List<String> accepted = new ArrayList<>();
        List<Rejection> rejected = new ArrayList<>();
        List<Future<?>> sends = new ArrayList<>();
        long acceptedBytes = 0;
        for (int i = 0; i < items.size(); i++) {
            if (!(items.get(i) instanceof ObjectNode item)) {
                rejected.add(new Rejection(i, "not_an_object", "a record is a JSON object"));
                continue;
            }
            ObjectNode payload = withDefaults(kind, tenant, item.deepCopy(), now);
            try {
                sends.add(publisher.send(Payload.of(kind, payload))); // validates as the pipeline does, then sends
            } catch (InvalidPayloadException bad) {
                rejected.add(new Rejection(i, bad.reason().code(), bad.detail()));
                continue;
            }
            accepted.add(storeId(kind, tenant, payload));
            acceptedBytes += textBytes(item);
        }
        awaitAcks(sends);
        return new Written(List.copyOf(accepted), List.copyOf(rejected), acceptedBytes);
    }

    /** The UTF-8 bytes of a record's text: a turn's or memory's {@code text}, a document's {@code content}. */
    static long textBytes(JsonNode item) {
        JsonNode text = item.has("content") ? item.get("content") : item.get("text");
        return text != null && text.isTextual() ? text.asText().getBytes(StandardCharsets.UTF_8).length : 0;
    }

    private List<JsonNode> items(JsonNode body) throws ApiError {
        List<JsonNode> items = new ArrayList<>();
        if (body.has("records")) {
            if (!body.get("records").isArray() || body.size() != 1) {
                throw ApiError.invalid("a batch is {\"records\": [...]} and nothing else");
            }
            body.get("records").forEach(items::add);
        } else {
            items.add(body);
        }
        if (items.isEmpty()) {
            throw ApiError.invalid("no records");
        }
        if (items.size() > maxBatch) {
            throw new ApiError(413, "batch_too_large", "a request carries at most " + maxBatch + " records");
        }
        return items;
    }

    /** The contract's fixed fields, and what a caller may leave out: the time, and a memory's id, type and op. */
    private static ObjectNode withDefaults(PayloadKind kind, String tenant, ObjectNode payload, Instant now) {
        payload.put("schema", kind.schema());
        payload.put("tenant_id", tenant);
        if (!payload.has("ts")) {
            payload.put("ts", now.toString());
        }
        if (kind == PayloadKind.MEMORY) {
            if (!payload.has("op")) {
                payload.put("op", "upsert");
            }
            if (!payload.has("type")) {
                payload.put("type", RecordType.MEMORY.label());
            }
            if (!payload.has("memory_id") && payload.path("text").isTextual()) {
                payload.put("memory_id", contentId(payload.get("text").asText()));
            }
        }
        return payload;
    }

    /** A memory without an id is named by its text, so writing it twice keeps one. */
    private static String contentId(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return "m-" + HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static String storeId(PayloadKind kind, String tenant, ObjectNode p) {
        return switch (kind) {
            case TURN -> RecordIds.turn(tenant, p.get("session_id").asText(), p.get("turn_id").asText());
            case MEMORY -> RecordIds.memory(tenant, p.get("memory_id").asText());
            case DOC -> Payload.of(kind, p).key();
            case FORGET -> throw new IllegalArgumentException("forgets are not written through this endpoint");
        };
    }

    /** Sends one payload and waits for Kafka's acknowledgement. */
    void publish(Payload payload) throws ApiError {
        awaitAcks(List.of(publisher.send(payload)));
    }

    static void awaitAcks(List<Future<?>> sends) throws ApiError {
        try {
            for (Future<?> send : sends) {
                send.get(KAFKA_ACK_SECONDS, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiError(503, "unavailable", "interrupted while Kafka acknowledged the records");
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("a write was not acknowledged by Kafka", e);
            throw new ApiError(503, "kafka_unavailable", "Kafka did not acknowledge the records; retry (ids are stable)");
        }
    }
}
