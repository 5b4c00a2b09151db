package io.engram.model.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class ItemDateTest {

    private static final Instant MARCH_2 = Instant.parse("2026-03-02T10:00:00Z");

    @Test
    void aRecordIsDatedByTheDayItWasSaidInUtc() {
        MemoryRecord late = MemoryRecord.of("m", "t", RecordType.MEMORY, "x", Instant.parse("2026-03-02T23:30:00Z")).build();
        assertThat(ItemDate.of(late).line()).isEqualTo("2 Mar 2026:\n");
        assertThat(ContextItem.of(late, 0.5).date()).isEqualTo(ItemDate.at(late.ts()));
    }

    @Test
    void aRecordWithAValidityWindowIsDatedByIt() {
        MemoryRecord contract = MemoryRecord.of("m", "t", RecordType.MEMORY, "Ann works at Acme.", MARCH_2)
                .validity(Instant.parse("2026-01-01T00:00:00Z"), Instant.parse("2026-06-30T00:00:00Z")).build();
        assertThat(ContextItem.of(contract, 0.5).date().line()).isEqualTo("valid 1 Jan 2026 to 30 Jun 2026:\n");
    }

    @Test
    void aRuleIsUndated() {
        MemoryRecord rule = MemoryRecord.of("r", "t", RecordType.INVARIANT, "Never log secrets.", MARCH_2).tier(1).build();
        assertThat(ContextItem.of(rule, 0).date()).isNull();
    }

    @Test
    void aWindowReplacesTheDayItWasSaid() {
        Instant january1 = Instant.parse("2026-01-01T00:00:00Z");
        assertThat(new ItemDate(MARCH_2, january1, MARCH_2).line()).isEqualTo("valid 1 Jan 2026 to 2 Mar 2026:\n");
        assertThat(new ItemDate(MARCH_2, january1, null).line()).isEqualTo("valid from 1 Jan 2026:\n");
        assertThat(new ItemDate(MARCH_2, null, january1).line()).isEqualTo("valid until 1 Jan 2026:\n");
        assertThat(new ItemDate(MARCH_2, january1, null).start()).isEqualTo(january1);
        assertThat(new ItemDate(MARCH_2, null, january1).start()).isEqualTo(MARCH_2);
    }

    @Test
    void anItemDateNeedsTheTimeTheItemWasSaid() {
        assertThatThrownBy(() -> new ItemDate(null, MARCH_2, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("the time the item was said");
    }
}
