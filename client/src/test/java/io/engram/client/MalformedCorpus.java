package io.engram.client;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Real malformed input, several hundred records, each with the reject reason it must get. Records of the
 * {@code document} stage are valid payloads whose content the pipeline's partitioner refuses; the others are
 * refused by validation. Deterministic (fixed seed).
 */
public final class MalformedCorpus {

    /** One bad record, where it goes and what must become of it. */
    public record Bad(String topic, String key, byte[] value, RejectReason expected, boolean documentStage) {
    }

    private MalformedCorpus() {
    }

    public static List<Bad> generate(String tenant, Instant ts) {
        Random random = new Random(11);
        List<Bad> bad = new ArrayList<>();
        String turn = Payload.turn(tenant, "s-bad", "u", "t-bad", 1, "user", "a perfectly fine sentence", ts).json().toString();
        for (int i = 0; i < 40; i++) { // truncated JSON
            bad.add(validation(Topics.TURNS, turn.substring(0, 1 + random.nextInt(turn.length() - 2)), RejectReason.INVALID_JSON));
        }
        for (int i = 0; i < 10; i++) {
            bad.add(new Bad(Topics.MEMORIES, tenant, new byte[0], RejectReason.INVALID_JSON, false));
        }
        String[] wrongTypes = {"\"seq\":\"abc\"", "\"seq\":-1", "\"role\":5", "\"role\":\"robot\"", "\"text\":42",
                "\"ts\":\"yesterday\"", "\"session_id\":\"\"", "\"extra_field\":true"};
        for (int i = 0; i < 40; i++) {
            String field = wrongTypes[i % wrongTypes.length];
            String name = field.substring(0, field.indexOf(':'));
            String json = turn.replaceFirst(",\\" + name.substring(0, name.length() - 1) + "\":[^,}]*", "");
            json = json.substring(0, json.length() - 1) + "," + field + "}";
            bad.add(validation(Topics.TURNS, json, RejectReason.SCHEMA_VIOLATION));
        }
        String[] tenants = {"UPPER", "-lead", "has space", "a".repeat(70), "", "dot.ted", "ünï"};
        for (int i = 0; i < 35; i++) {
            bad.add(validation(Topics.TURNS, turn.replace("\"tenant_id\":\"" + tenant + "\"",
                    "\"tenant_id\":\"" + tenants[i % tenants.length] + "\""), RejectReason.INVALID_TENANT));
        }
        for (int i = 0; i < 5; i++) {
            bad.add(validation(Topics.TURNS, turn.replace("\"tenant_id\":\"" + tenant + "\",", ""), RejectReason.INVALID_TENANT));
        }
        for (int i = 0; i < 10; i++) { // text over the 64 KiB bound
            bad.add(validation(Topics.TURNS, Payload.turn(tenant, "s-bad", "u", "big-" + i, i, "user",
                    "word ".repeat(14_000 + i), ts).json().toString(), RejectReason.TEXT_TOO_LARGE));
        }
        for (int i = 0; i < 30; i++) { // a broken UTF-8 sequence inside the text
            byte[] ok = turn.getBytes(StandardCharsets.UTF_8);
            int at = turn.indexOf("perfectly") + (i % 8);
            byte[] broken = new byte[ok.length + 2];
            System.arraycopy(ok, 0, broken, 0, at);
            broken[at] = (byte) 0xC3;
            broken[at + 1] = (byte) 0x28;
            System.arraycopy(ok, at, broken, at + 2, ok.length - at);
            bad.add(new Bad(Topics.TURNS, tenant, broken, RejectReason.INVALID_UTF8, false));
        }
        for (int i = 0; i < 10; i++) { // valid JSON escaping what is not text: a lone surrogate, a NUL
            String escape = i % 2 == 0 ? "\\ud83d" : "\\u0000";
            bad.add(validation(Topics.TURNS, turn.replace("perfectly", "perf" + escape + "ectly"), RejectReason.INVALID_TEXT));
        }
        for (int i = 0; i < 30; i++) {
            bad.add(validation(Topics.TURNS, turn.replace("\"turn.v1\"", "\"turn.v" + (2 + i % 3) + "\""),
                    RejectReason.UNKNOWN_SCHEMA));
        }
        String[] notObjects = {"[1,2,3]", "42", "\"a string\"", "null", "true"};
        for (int i = 0; i < 30; i++) {
            bad.add(validation(Topics.MEMORIES, notObjects[i % notObjects.length], RejectReason.NOT_AN_OBJECT));
        }
        String memory = Payload.memory(tenant, "m-bad", "memory", "fine", List.of(), 0, null, ts).json().toString();
        for (int i = 0; i < 20; i++) {
            bad.add(validation(Topics.TURNS, memory, RejectReason.WRONG_TOPIC));
        }
        for (int i = 0; i < 20; i++) { // an upsert must carry text
            bad.add(validation(Topics.MEMORIES, memory.replace(",\"text\":\"fine\"", ""), RejectReason.SCHEMA_VIOLATION));
        }
        for (String facts : badFacts()) { // a memory's key, supersedes and dates (docs/contracts.md, "Supersession")
            bad.add(validation(Topics.MEMORIES, memory.replace(",\"text\":\"fine\"", ",\"text\":\"fine\"," + facts),
                    RejectReason.SCHEMA_VIOLATION));
        }
        for (int i = 0; i < 2; i++) { // 10 MB documents
            bad.add(validation(Topics.DOCS, Payload.doc(tenant, "agent-bad", "HUGE" + i + ".md", "standard", 1,
                    "x".repeat(10 * 1024 * 1024), ts).json().toString(), RejectReason.DOCUMENT_TOO_LARGE));
        }
        for (int i = 0; i < 20; i++) { // nesting deeper than the partitioner accepts
            StringBuilder nested = new StringBuilder();
            for (int depth = 0; depth < 80 + i; depth++) {
                nested.append("  ".repeat(depth)).append("- level ").append(depth).append('\n');
            }
            bad.add(document(tenant, "DEEP" + i + ".md", nested.toString(), ts, RejectReason.DOCUMENT_TOO_DEEP));
        }
        for (int i = 0; i < 10; i++) {
            bad.add(document(tenant, "BINARY" + i + ".md", "# Title\n\u0000\u0001\u0002\u0000binary\u0000" + i, ts,
                    RejectReason.DOCUMENT_BINARY));
        }
        return bad;
    }

    /** Fields of a memory's facts, each malformed in its own way. */
    public static List<String> badFacts() {
        String hundredAndOneIds = "\"m-0\"" + ",\"m-x\"".repeat(100);
        return List.of("\"key\":\" user.city\"", "\"key\":\"\"", "\"key\":\"" + "k".repeat(129) + "\"",
                "\"key\":\"user city\"", "\"key\":42", "\"supersedes\":\"m-1\"", "\"supersedes\":[\"\"]",
                "\"supersedes\":[" + hundredAndOneIds + "]", "\"valid_from\":\"yesterday\"",
                "\"valid_until\":\"2026-13-01T00:00:00Z\"", "\"expires_at\":\"2026-03-01\"",
                "\"valid_from\":\"2026-03-01T00:00:00Z\",\"valid_until\":\"2026-03-01T00:00:00Z\"",
                "\"valid_from\":\"2026-03-02T00:00:00Z\",\"valid_until\":\"2026-03-01T00:00:00+02:00\"",
                "\"user_id\":\"\"");
    }

    private static Bad validation(String topic, String json, RejectReason expected) {
        return new Bad(topic, "bad", json.getBytes(StandardCharsets.UTF_8), expected, false);
    }

    private static Bad document(String tenant, String path, String content, Instant ts, RejectReason expected) {
        Payload p = Payload.doc(tenant, "agent-bad", path, "standard", 1, content, ts);
        return new Bad(Topics.DOCS, p.key(), p.bytes(), expected, true);
    }
}
