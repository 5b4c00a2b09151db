package io.engram.jobs.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.engram.client.Payload;
import io.engram.client.PayloadKind;
import io.engram.client.PayloadValidator;
import io.engram.client.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class PayloadDeserializerTest {

    private static final Instant TS = Instant.parse("2026-11-01T10:00:00Z");
    private final PayloadValidator validator = new PayloadValidator(PayloadValidator.Limits.DEFAULT);

    @Test
    void aValidTurnCarriesItsTenantAndEventTime() {
        Payload turn = Payload.turn("acme", "s1", null, "t1", 7, "user", "hello", TS);
        Ingested in = PayloadDeserializer.ingest(validator, Topics.TURNS, 1, 42, 5L, turn.bytes());
        assertThat(in.rejected()).isFalse();
        assertThat(in.kind()).isEqualTo(PayloadKind.TURN);
        assertThat(in.tenantId()).isEqualTo("acme");
        assertThat(in.tsMillis()).isEqualTo(TS.toEpochMilli());
        assertThat(in.offset()).isEqualTo(42);
    }

    @Test
    void badInputIsARejectWithTheRecordsTimeAndBytes() {
        byte[] bad = "{\"schema\": \"turn.v1\", \"tenant_id\": \"acme\"".getBytes(StandardCharsets.UTF_8);
        Ingested in = PayloadDeserializer.ingest(validator, Topics.TURNS, 0, 3, 5L, bad);
        assertThat(in.rejected()).isTrue();
        assertThat(in.reasonCode()).isEqualTo("invalid_json");
        assertThat(in.tsMillis()).isEqualTo(5L);
        assertThat(in.original()).isEqualTo(bad);
    }

    @Test
    void aFailureOfTheValidatorItselfFailsLoudlyInsteadOfPassingForBadInput() {
        // no validator: deserialize before open(), a bug of ours, not the gateway's
        byte[] good = Payload.turn("acme", "s1", null, "t1", 7, "user", "hello", TS).bytes();
        assertThatThrownBy(() -> PayloadDeserializer.ingest(null, Topics.TURNS, 0, 0, 0L, good))
                .isInstanceOf(NullPointerException.class);
    }
}
