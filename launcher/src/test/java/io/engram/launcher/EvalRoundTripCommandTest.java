package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.compaction.SummaryId;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.InMemoryMemoryStore;
import io.engram.store.RecordIds;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The round trip's comparison ({@link EvalRoundTripCommand#canonical}): one tenant's records and the same records
 * under another name read as equal, summary ids (which hash the tenant in) included; a changed fact does not.
 */
class EvalRoundTripCommandTest {

    private static final Instant T = Instant.parse("2025-03-01T10:00:00Z");

    /** A session's two turns, a summary of them, and a chain of two memories, all of {@code tenant}. */
    private static List<MemoryRecord> records(String tenant, String newestCity) {
        String t0 = RecordIds.turn(tenant, "s1", "t0");
        String t1 = RecordIds.turn(tenant, "s1", "t1");
        String summary = SummaryId.of(tenant, "s1", List.of("t0", "t1"));
        return List.of(
                MemoryRecord.of(t0, tenant, RecordType.TURN, "Ann: I moved to Lyon.", T).session("s1").user("ann")
                        .role("user").tokens(6).build(),
                MemoryRecord.of(t1, tenant, RecordType.TURN, "Bo: Nice!", T.plusSeconds(30)).session("s1")
                        .role("assistant").tokens(3).build(),
                MemoryRecord.of(summary, tenant, RecordType.SUMMARY, "Ann moved to Lyon.", T.plusSeconds(30))
                        .session("s1").provenance(List.of("t0", "t1"), 1).tokens(4).build(),
                MemoryRecord.of(RecordIds.memory(tenant, "city-1"), tenant, RecordType.MEMORY, "Ann lives in Paris.", T)
                        .user("ann").key("user.city").supersededBy(RecordIds.memory(tenant, "city-2"), T.plusSeconds(60))
                        .tokens(4).build(),
                MemoryRecord.of(RecordIds.memory(tenant, "city-2"), tenant, RecordType.MEMORY, newestCity,
                        T.plusSeconds(60)).user("ann").key("user.city")
                        .supersedes(List.of(RecordIds.memory(tenant, "city-1"))).tokens(4).build());
    }

    @Test
    void theSameRecordsUnderAnotherTenantReadAsEqualAndAChangedOneDoesNot() {
        try (InMemoryMemoryStore store = new InMemoryMemoryStore("roundtrip-" + UUID.randomUUID())) {
            store.upsert(records("acme", "Ann lives in Lyon."));
            store.upsert(records("acme-moved", "Ann lives in Lyon."));
            store.upsert(records("acme-edited", "Ann lives in Nice."));

            assertThat(EvalRoundTripCommand.canonical(store, "acme")).hasSize(5)
                    .isEqualTo(EvalRoundTripCommand.canonical(store, "acme-moved"))
                    .allMatch(line -> !line.contains("acme"));
            assertThat(SummaryId.of("acme", "s1", List.of("t0", "t1")))
                    .as("a summary's id differs with its tenant").isNotEqualTo(SummaryId.of("acme-moved", "s1", List.of("t0", "t1")));
            assertThat(EvalRoundTripCommand.canonical(store, "acme"))
                    .isNotEqualTo(EvalRoundTripCommand.canonical(store, "acme-edited"));
        }
    }
}
