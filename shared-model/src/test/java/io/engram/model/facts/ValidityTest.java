package io.engram.model.facts;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ValidityTest {

    private static Instant at(String day) {
        return Instant.parse("2026-" + day + "T00:00:00Z");
    }

    private static final MemoryRecord PARIS = MemoryRecord.of("acme/m1", "acme", RecordType.MEMORY, "lives in Paris",
            at("01-10")).supersededBy("acme/m2", at("03-01")).build();
    private static final MemoryRecord TRIP = MemoryRecord.of("acme/m3", "acme", RecordType.MEMORY, "in Rome",
            at("01-10")).validity(at("05-01"), at("05-08")).build();

    @Test
    void aSupersededMemoryHoldsUntilItsSuccessorStarts() {
        assertThat(new Validity(at("02-28"), true).holds(PARIS)).isTrue();
        assertThat(Validity.now(at("03-01")).holds(PARIS)).isFalse();
    }

    @Test
    void aValidityWindowIncludesItsStartAndExcludesItsEnd() {
        assertThat(Validity.now(at("04-30")).holds(TRIP)).isFalse();
        assertThat(Validity.now(at("05-01")).holds(TRIP)).isTrue();
        assertThat(Validity.now(at("05-08")).holds(TRIP)).isFalse();
    }

    @Test
    void anExpiredRecordLeavesReadsAtItsExpiry() {
        MemoryRecord trial = MemoryRecord.of("acme/m4", "acme", RecordType.MEMORY, "trial", at("01-10"))
                .expiresAt(at("02-01")).build();
        assertThat(Validity.now(at("01-31")).holds(trial)).isTrue();
        assertThat(Validity.now(at("02-01")).holds(trial)).isFalse();
    }

    @Test
    void askedAboutThePastARecordWithoutValidFromStartsAtItsTs() {
        assertThat(new Validity(at("01-09"), true).holds(PARIS)).isFalse();
        assertThat(Validity.now(at("01-09")).holds(PARIS)).as("now: as stored").isTrue();
    }
}
