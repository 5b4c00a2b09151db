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
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A writer restores held changes written in store-change layout 1, before records carried their facts. The
 * snapshots under {@code layout1-state/} are that layout's bytes (commit 88eacfc), one per state backend: tenant
 * {@code layout1}, the watermark at 09:53, two compaction changes held: the upsert of summary {@code sum-a-1} made
 * at 10:00 and the delete of {@code sum-b-0} at 10:05.
 */
class StoreWriterLayoutMigrationTest {

    @ParameterizedTest
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void heldChangesOfLayout1AreReleasedWithEveryFieldAndSurviveTheNextSnapshot(String backend) throws Exception {
        String index = StoreWriterOperatorTest.newIndex();
        OperatorSubtaskState migrated;
        try (var h = StoreWriterLegacyStateTest.harness(backend, index)) {
            h.initializeState(StoreWriterLegacyStateTest.snapshot("layout1-state", backend));
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
        MemoryRecord summary = MemoryRecord.of("sum-a-1", "layout1", RecordType.SUMMARY, "summary one of session a",
                Instant.ofEpochMilli(time("09:55"))).embedding(new float[] {1, 1, 0}).provenance(List.of("t1", "t2"), 1)
                .quality(0.8, 0.2).session("a").user("ann").tokens(5).build();
        try (InMemoryMemoryStore store = new InMemoryMemoryStore(index)) {
            assertThat(store.find("layout1", Map.of(), Set.of(), 10, null, true)).containsExactly(summary);
        }
    }
}
