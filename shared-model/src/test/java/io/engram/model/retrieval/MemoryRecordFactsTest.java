package io.engram.model.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MemoryRecordFactsTest {

    private static final MemoryRecord BERLIN = MemoryRecord.of("acme/m2", "acme", RecordType.MEMORY, "lives in Berlin",
            Instant.parse("2026-03-01T10:00:00Z")).user("ann").key("user.city").supersedes(List.of("acme/m1"))
            .supersededBy("acme/m3", Instant.parse("2026-06-01T00:00:00Z"))
            .validity(Instant.parse("2026-03-01T00:00:00Z"), Instant.parse("2026-12-01T00:00:00Z"))
            .expiresAt(Instant.parse("2027-03-01T00:00:00Z")).quality(0.5, 0.1).tokens(4).build();

    @Test
    void theFactsAreInTheIndexWithDatesAsEpochMillisAndReadBack() {
        Map<String, Object> source = BERLIN.toSource();
        assertThat(source).containsEntry("key", "user.city").containsEntry("supersedes", List.of("acme/m1"))
                .containsEntry("superseded_by", "acme/m3")
                .containsEntry("superseded_at", Instant.parse("2026-06-01T00:00:00Z").toEpochMilli())
                .containsEntry("valid_until", Instant.parse("2026-12-01T00:00:00Z").toEpochMilli());
        MemoryRecord back = MemoryRecord.fromSource(BERLIN.id(), source);
        assertThat(back).isEqualTo(BERLIN);
        assertThat(back.expiresAt()).isEqualTo(Instant.parse("2027-03-01T00:00:00Z"));
    }

    @Test
    void aCopyKeepsEveryField() {
        MemoryRecord copy = BERLIN.withEmbedding(new float[] {1, 0}, 4).withSupersededBy(null, null);
        assertThat(copy.toBuilder().supersededBy("acme/m3", BERLIN.supersededAt()).embedding(null).build()).isEqualTo(BERLIN);
        assertThat(copy.supersededBy()).isNull();
        assertThat(copy.confidence()).isEqualTo(0.5);
    }
}
