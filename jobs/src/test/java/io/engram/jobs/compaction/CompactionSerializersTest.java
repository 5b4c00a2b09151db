package io.engram.jobs.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.jobs.serde.SerializerChecks;
import io.engram.model.compaction.PreservationScore;
import io.engram.model.compaction.SessionCompactor.SummaryRecord;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class CompactionSerializersTest {

    private static SummaryRecord summary(String id, String text) {
        return new SummaryRecord(id, text, new float[] {0.25f, -0.5f, Float.MIN_VALUE}, List.of("t0", "t1"), 2,
                new PreservationScore(0.8, 0.7, 0.75, 0.25), Instant.parse("2026-11-20T10:00:00Z"),
                Instant.parse("2026-11-20T10:20:00.5Z"), 400, 60);
    }

    @Test
    void aSummaryReadsBackFieldForFieldWithItsVectorBitForBit() throws Exception {
        SummaryRecord s = summary("sum-1", "A long summary. ".repeat(5000)); // over 64 KiB of text
        SummaryRecord read = SerializerChecks.roundTrip(SummaryRecordSerializer.INSTANCE, s);
        assertThat(read).usingRecursiveComparison().isEqualTo(s);
        assertThat(read.embedding()).containsExactly(s.embedding());
    }

    @Test
    void aCompactionResultReadsBackWithItsSummaries() throws Exception {
        CompactionResult r = new CompactionResult("acme", "s1", "u1", List.of(summary("a", "x"), summary("b", "y")),
                List.of("t0", "t1"), List.of("old"), 1, 2, 3);
        CompactionResult read = SerializerChecks.roundTrip(CompactionResultSerializer.INSTANCE, r);
        assertThat(read).usingRecursiveComparison().isEqualTo(r);
    }
}
