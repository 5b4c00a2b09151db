package io.engram.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PayloadValidatorTest {

    private static final Instant TS = Instant.parse("2026-11-01T10:00:00Z");
    private final PayloadValidator validator = new PayloadValidator(PayloadValidator.Limits.DEFAULT);

    @Test
    void validPayloadsOfEachKindPass() {
        for (Payload p : List.of(
                Payload.turn("acme", "s1", "u1", "t1", 0, "user", "hello", TS),
                Payload.doc("acme", "agent", "AGENTS.md", "core", 3, "# Rules\n- Always test.", TS),
                Payload.docDeleted("acme", "agent", "AGENTS.md", "core", 4, TS),
                Payload.memory("acme", "m1", "lesson", "tests first", List.of("m0"), 1, "c1", TS),
                Payload.memoryDeleted("acme", "m1", "lesson", null, TS))) {
            PayloadValidator.Result r = validator.validate(p.bytes(), p.kind());
            assertThat(r).isInstanceOf(PayloadValidator.Valid.class);
            assertThat(((PayloadValidator.Valid) r).tenantId()).isEqualTo("acme");
            assertThat(((PayloadValidator.Valid) r).ts()).isEqualTo(TS);
        }
    }

    @Test
    void aMemorysFactsPassWhenWellFormed() {
        Payload p = Payload.memory("acme", "m2", "memory", "Ann lives in Berlin", List.of(), 0, null, TS);
        p.json().put("user_id", "ann").put("key", "user.city").put("valid_from", "2026-03-01T00:00:00Z")
                .put("valid_until", "2026-09-01T00:00:00+02:00").put("expires_at", "2027-01-01T00:00:00Z")
                .putArray("supersedes").add("m1");
        assertThat(validator.validate(p.bytes(), PayloadKind.MEMORY)).isInstanceOf(PayloadValidator.Valid.class);
    }

    @Test
    void aValidityWindowThatEndsBeforeItStartsNamesBothEnds() {
        Payload p = Payload.memory("acme", "m2", "memory", "x", List.of(), 0, null, TS);
        p.json().put("valid_from", "2026-03-02T00:00:00Z").put("valid_until", "2026-03-01T00:00:00Z");
        PayloadValidator.Result r = validator.validate(p.bytes(), PayloadKind.MEMORY);
        assertThat(((PayloadValidator.Invalid) r).message())
                .isEqualTo("memory.v1: valid_until 2026-03-01T00:00:00Z is not after valid_from 2026-03-02T00:00:00Z");
    }

    @Test
    void everyMalformedRecordGetsItsReason() {
        List<MalformedCorpus.Bad> corpus = MalformedCorpus.generate("acme", TS);
        assertThat(corpus).hasSizeGreaterThan(300);
        for (MalformedCorpus.Bad bad : corpus) {
            PayloadValidator.Result r = validator.validate(bad.value(), PayloadKind.ofTopic(bad.topic()));
            if (bad.documentStage()) {
                assertThat(r).as("documents are refused by the partitioner, not by validation")
                        .isInstanceOf(PayloadValidator.Valid.class);
            } else {
                assertThat(r).isInstanceOf(PayloadValidator.Invalid.class);
                assertThat(((PayloadValidator.Invalid) r).reason()).as(new String(bad.value(), 0,
                        Math.min(200, bad.value().length))).isEqualTo(bad.expected());
                assertThat(((PayloadValidator.Invalid) r).message()).isNotBlank();
            }
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            // seq and version are 64-bit; generation is 32-bit: a gateway with a bug sends more
            "turn.v1   | engram.turns.v1    | \"seq\": 1180591620717411303424",
            "turn.v1   | engram.turns.v1    | \"seq\": 9223372036854775808",
            "turn.v1   | engram.turns.v1    | \"seq\": 1e300",
            "doc.v1    | engram.docs.v1     | \"version\": 18446744073709551616",
            "memory.v1 | engram.memories.v1 | \"generation\": 2147483648"})
    void aNumberOutsideItsFieldsRangeIsASchemaViolation(String schema, String topic, String field) {
        String common = "\"tenant_id\": \"acme\", \"ts\": \"2026-11-01T10:00:00Z\"";
        String json = switch (schema) {
            case "turn.v1" -> "{\"schema\": \"turn.v1\", " + common + ", \"session_id\": \"s\", \"turn_id\": \"t\", "
                    + "\"role\": \"user\", \"text\": \"hi\", " + field + "}";
            case "doc.v1" -> "{\"schema\": \"doc.v1\", " + common + ", \"agent_id\": \"a\", \"path\": \"AGENTS.md\", "
                    + "\"doc_class\": \"core\", \"content\": \"- x\", " + field + "}";
            default -> "{\"schema\": \"memory.v1\", " + common + ", \"memory_id\": \"m\", \"type\": \"lesson\", "
                    + "\"op\": \"upsert\", \"text\": \"x\", \"source_refs\": [], " + field + "}";
        };
        PayloadValidator.Result r = validator.validate(json.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                PayloadKind.ofTopic(topic));
        assertThat(r).as(json).isInstanceOf(PayloadValidator.Invalid.class);
        assertThat(((PayloadValidator.Invalid) r).reason()).isEqualTo(RejectReason.SCHEMA_VIOLATION);
        assertThat(((PayloadValidator.Invalid) r).message()).startsWith(schema + ": ");
    }

    @Test
    void aForgetOfATenantMustNameItsOwnTenant() {
        Payload own = Payload.forget("acme", "f1", "tenant", "acme", TS);
        assertThat(validator.validate(own.bytes(), PayloadKind.FORGET)).isInstanceOf(PayloadValidator.Valid.class);
        Payload other = Payload.forget("acme", "f2", "tenant", "globex", TS);
        assertThat(validator.validate(other.bytes(), PayloadKind.FORGET)).isEqualTo(new PayloadValidator.Invalid(
                RejectReason.SCHEMA_VIOLATION,
                "forget.v1: /target: \"globex\" is not the tenant_id \"acme\" a forget of scope tenant deletes", "acme"));
        Payload user = Payload.forget("acme", "f3", "user", "globex", TS);
        assertThat(validator.validate(user.bytes(), PayloadKind.FORGET)).as("a user may be called anything")
                .isInstanceOf(PayloadValidator.Valid.class);
    }

    @Test
    void theLargestNumbersInRangePass() {
        Payload turn = Payload.turn("acme", "s1", null, "t1", Long.MAX_VALUE, "user", "hello", TS);
        assertThat(validator.validate(turn.bytes(), PayloadKind.TURN)).isInstanceOf(PayloadValidator.Valid.class);
        Payload memory = Payload.memory("acme", "m1", "lesson", "x", List.of(), Integer.MAX_VALUE, null, TS);
        assertThat(validator.validate(memory.bytes(), PayloadKind.MEMORY)).isInstanceOf(PayloadValidator.Valid.class);
    }

    @Test
    void theProducerRefusesWhatThePipelineWouldReject() {
        try (EngramProducer producer = new EngramProducer("127.0.0.1:1")) {
            assertThatThrownBy(() -> producer.send(Payload.turn("Not A Tenant", "s", null, "t", 0, "user", "x", TS)))
                    .isInstanceOf(InvalidPayloadException.class).hasMessageStartingWith("invalid_tenant");
            assertThatThrownBy(() -> producer.send(Payload.turn("acme", "s", null, "t", 0, "robot", "x", TS)))
                    .isInstanceOf(InvalidPayloadException.class).hasMessageStartingWith("schema_violation");
        }
    }

    @Test
    void aLoneSurrogateOrANulIsRefusedNamingTheFieldAndCharacterAndNeverAltered() {
        // on the wire: JSON escapes, valid UTF-8 bytes that decode to what is not text
        String onWire = Payload.turn("acme", "s1", "u1", "t1", 0, "user", "héllo 👋 there", TS).json().toString()
                .replace("there", "th\\ud83dere");
        PayloadValidator.Result read = validator.validate(onWire.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                PayloadKind.TURN);
        assertThat(read).isEqualTo(new PayloadValidator.Invalid(RejectReason.INVALID_TEXT,
                "turn.v1: /text: a lone surrogate \\ud83d at character 10", "acme"));
        String nul = onWire.replace("th\\ud83dere", "there\\u0000");
        assertThat(((PayloadValidator.Invalid) validator.validate(nul.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                PayloadKind.TURN)).message()).isEqualTo("turn.v1: /text: a NUL character at character 13");

        // before send: the string as the caller gave it, which UTF-8 encoding would turn into "?"
        Payload lone = Payload.memory("acme", "m1", "memory", "ok \udc00", List.of(), 0, null, TS);
        assertThat(lone.bytes()).as("what UTF-8 encoding makes of it").isEqualTo(Payload.memory("acme", "m1", "memory",
                "ok ?", List.of(), 0, null, TS).bytes());
        assertThat(validator.validate(lone)).isEqualTo(new PayloadValidator.Invalid(RejectReason.INVALID_TEXT,
                "memory.v1: /text: a lone surrogate \\udc00 at character 3", "acme"));
        assertThat(validator.validate(Payload.turn("acme", "s1", "u1", "t1", 0, "user", "pair 👋 and ünï", TS)))
                .as("a surrogate pair is one character of text").isInstanceOf(PayloadValidator.Valid.class);
    }
}
