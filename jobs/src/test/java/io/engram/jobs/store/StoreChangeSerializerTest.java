package io.engram.jobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.jobs.serde.SerializerChecks;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every kind of store change reads back field for field, absent fields absent, and so does a held change. */
class StoreChangeSerializerTest {

    private static final Instant TS = Instant.parse("2026-11-20T10:00:00.123456789Z");

    private static StoreChange roundTrip(StoreChange change) throws Exception {
        return SerializerChecks.roundTrip(StoreChangeSerializer.INSTANCE, change);
    }

    @Test
    void anUpsertKeepsEveryFieldOfItsRecordAndItsCycle() throws Exception {
        MemoryRecord full = MemoryRecord.of("doc-1", "acme", RecordType.INVARIANT, "- Always run the linters", TS)
                .tier(1).embedding(new float[] {0.25f, -1, 3.5f}).provenance(List.of("r1", "r2"), 2).quality(0.8, 0.2)
                .authority(0.5).session("s1").user("ann").role("user").document("coder", "AGENTS.md", 7L).position(3)
                .tokens(9).key("user.city").supersedes(List.of("acme/m0")).supersededBy("acme/m2", TS.plusSeconds(60))
                .validity(TS.minusSeconds(60), TS.plusSeconds(3600)).expiresAt(TS.plusSeconds(7200))
                .sourcesFrom(TS.minusSeconds(86_400)).build();
        StoreChange.Upsert upsert = (StoreChange.Upsert) roundTrip(new StoreChange.Upsert(full, "c-1"));
        assertThat(upsert.record()).isEqualTo(full);
        assertThat(upsert.record().ts()).isEqualTo(TS);
        assertThat(upsert.record().validFrom()).isEqualTo(TS.minusSeconds(60));
        assertThat(upsert.record().sourcesFrom()).isEqualTo(TS.minusSeconds(86_400));
        assertThat(upsert.cycleId()).isEqualTo("c-1");

        MemoryRecord bare = MemoryRecord.of("m1", "acme", RecordType.MEMORY, "text", TS).build();
        StoreChange.Upsert read = (StoreChange.Upsert) roundTrip(new StoreChange.Upsert(bare, null));
        assertThat(read.record()).isEqualTo(bare);
        assertThat(read.record().embedding()).isNull();
        assertThat(read.record().tier()).isNull();
        assertThat(read.cycleId()).isNull();
        assertThat(read.vectorOf()).isEmpty();

        MemoryRecord window = MemoryRecord.of("acme/s1/window/t0..t1", "acme", RecordType.WINDOW, "hi\nho", TS).build();
        StoreChange.Upsert ofTurns = (StoreChange.Upsert) roundTrip(new StoreChange.Upsert(window, null, List.of("hi", "ho")));
        assertThat(ofTurns.record()).isEqualTo(window);
        assertThat(ofTurns.vectorOf()).containsExactly("hi", "ho");
    }

    @Test
    void theOtherKindsReadBackAsTheyWere() throws Exception {
        List<StoreChange> changes = List.of(
                new StoreChange.Delete("acme", "sum-1", RecordType.SUMMARY, "s1", 42, "c-2"),
                new StoreChange.Delete("acme", "acme/m1", RecordType.MEMORY, null, 43, null),
                new StoreChange.ReplaceDocument("acme", "coder", "AGENTS.md", 4, 44),
                new StoreChange.Forget("acme", "f1", ForgetScope.USER, "ann", 45),
                new StoreChange.MergeSignals("acme", "s1", 46, 1, 2, "c-3"),
                new StoreChange.Supersede("acme", "acme/m1", "acme/m2", 48L, 49),
                new StoreChange.Supersede("acme", "acme/m1", null, null, 50),
                new StoreChange.Sweep("acme", RecordType.TURN, 51, 52),
                new StoreChange.DocumentVersion("acme", "coder", "AGENTS.md", 7, false, 12, 53));
        for (StoreChange change : changes) {
            assertThat(roundTrip(change)).isEqualTo(change);
        }
    }

    @Test
    void aHeldChangeKeepsItsTime() throws Exception {
        HeldChange held = new HeldChange(99, new StoreChange.MergeSignals("acme", "s1", 46, 1, 2, null));
        assertThat(SerializerChecks.roundTrip(HeldChange.Serializer.INSTANCE, held)).isEqualTo(held);
    }
}
