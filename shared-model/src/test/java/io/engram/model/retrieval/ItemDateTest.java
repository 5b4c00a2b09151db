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
    void aSummaryIsDatedByTheSpanOfItsSourcesAndPlacedByItsStart() {
        Instant march3 = Instant.parse("2026-03-03T18:00:00Z");
        Instant april2 = Instant.parse("2026-04-02T09:00:00Z");
        MemoryRecord summary = MemoryRecord.of("s", "t", RecordType.SUMMARY, "Ann planned the move.", april2)
                .sourcesFrom(march3).build();
        ItemDate date = ContextItem.of(summary, 0.5).date();
        assertThat(date.line()).isEqualTo("3 Mar 2026 to 2 Apr 2026:\n");
        assertThat(date.start()).as("among the items of March").isEqualTo(march3);
        MemoryRecord oneDay = MemoryRecord.of("s", "t", RecordType.SUMMARY, "Ann packed.", april2)
                .sourcesFrom(april2.minusSeconds(3600)).build();
        assertThat(ItemDate.of(oneDay)).as("sources of one day: that day").isEqualTo(ItemDate.at(april2));
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
