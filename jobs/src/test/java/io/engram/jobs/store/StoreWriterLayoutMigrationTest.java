package io.engram.jobs.store;

import static io.engram.jobs.store.StoreWriterOperatorTest.time;
import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.InMemoryMemoryStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A writer restores held changes written in store-change layout 1, before records carried their facts. The
 * snapshots under {@code layout1-state/} are that layout's bytes (commit 88eacfc), one per state backend: tenant
 * {@code layout1}, the watermark at 09:53, two compaction changes held: the upsert of summary {@code sum-a-1} made
 * at 10:00 and the delete of {@code sum-b-0} at 10:05.
 */
class StoreWriterLayoutMigrationTest {

    private static KeyedOneInputStreamOperatorTestHarness<String, StoreChange, StoreChange> harness(String backend,
            String index) throws Exception {
        var harness = new KeyedOneInputStreamOperatorTestHarness<>(new StoreWriterOperator(InMemoryMemoryStore.at(index),
                StoreWriterOperatorTest.SETTINGS, StoreWriterOperatorTest.NOON), StoreChange::tenantId, Types.STRING);
        harness.setStateBackend(backend.equals("rocksdb") ? new EmbeddedRocksDBStateBackend() : new HashMapStateBackend());
        harness.setup(StoreChangeSerializer.INSTANCE);
        return harness;
    }

    private static OperatorSubtaskState layout1(String backend) throws Exception {
        Path file = Path.of(StoreWriterLayoutMigrationTest.class.getResource("/layout1-state/store-writer-" + backend
                + ".snapshot").toURI());
        return OperatorSnapshotUtil.readStateHandle(file.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void heldChangesOfLayout1AreReleasedWithEveryFieldAndSurviveTheNextSnapshot(String backend) throws Exception {
        String index = StoreWriterOperatorTest.newIndex();
        OperatorSubtaskState migrated;
        try (var h = harness(backend, index)) {
            h.initializeState(layout1(backend));
            h.open();
            h.prepareSnapshotPreBarrier(2);
            migrated = h.snapshot(2, time("09:55"));
        }
        try (var h = harness(backend, index)) {
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
