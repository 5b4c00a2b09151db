package io.engram.jobs.store;

import static io.engram.jobs.store.StoreWriterOperatorTest.time;
import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.InMemoryMemoryStore;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A writer restores held changes written in earlier store-change layouts: 1, before records carried their facts
 * (under {@code layout1-state/}, commit 88eacfc), and 2, before summaries carried the start of their span
 * ({@code layout2-state/}, commit 3620d6e); one snapshot per state backend. Tenant {@code layout1} or
 * {@code layout2}, the watermark at 09:53, two compaction changes held: the upsert of summary {@code sum-a-1} made at
 * 10:00 and the delete of {@code sum-b-0} at 10:05.
 */
class StoreWriterLayoutMigrationTest {

    @ParameterizedTest
    @CsvSource({"layout1, hashmap", "layout1, rocksdb", "layout2, hashmap", "layout2, rocksdb"})
    void heldChangesOfAnEarlierLayoutAreReleasedWithEveryFieldAndSurviveTheNextSnapshot(String layout, String backend)
            throws Exception {
        String index = StoreWriterOperatorTest.newIndex();
        OperatorSubtaskState migrated;
        try (var h = StoreWriterLegacyStateTest.harness(backend, index)) {
            h.initializeState(StoreWriterLegacyStateTest.snapshot(layout + "-state", backend));
            h.open();
            h.prepareSnapshotPreBarrier(2);
            migrated = h.snapshot(2, time("09:55"));
        }
        try (var h = StoreWriterLegacyStateTest.harness(backend, index)) {
            h.initializeState(migrated);
            h.open();
            h.processWatermark(time("12:00"));
            assertThat(StoreWriterOperatorTest.forwarded(h)).hasSize(2);
        }
        MemoryRecord summary = MemoryRecord.of("sum-a-1", layout, RecordType.SUMMARY, "summary one of session a",
                Instant.ofEpochMilli(time("09:55"))).embedding(new float[] {1, 1, 0}).provenance(List.of("t1", "t2"), 1)
                .quality(0.8, 0.2).session("a").user("ann").tokens(5).build();
        try (InMemoryMemoryStore store = new InMemoryMemoryStore(index)) {
            assertThat(store.find(layout, Map.of(), Set.of(), 10, null, true)).containsExactly(summary);
        }
    }
}
