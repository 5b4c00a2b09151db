package io.engram.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

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

    @Test
    void theProducerRefusesWhatThePipelineWouldReject() {
        try (EngramProducer producer = new EngramProducer("127.0.0.1:1")) {
            assertThatThrownBy(() -> producer.send(Payload.turn("Not A Tenant", "s", null, "t", 0, "user", "x", TS)))
                    .isInstanceOf(InvalidPayloadException.class).hasMessageStartingWith("invalid_tenant");
            assertThatThrownBy(() -> producer.send(Payload.turn("acme", "s", null, "t", 0, "robot", "x", TS)))
                    .isInstanceOf(InvalidPayloadException.class).hasMessageStartingWith("schema_violation");
        }
    }
}
