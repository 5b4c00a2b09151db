package io.engram.jobs.store;

import static io.engram.jobs.store.StoreWriterOperatorTest.time;
import static org.assertj.core.api.Assertions.assertThat;

import io.engram.jobs.ingest.ForgetEvent;
import io.engram.jobs.store.StoreChange.MergeSignals;
import io.engram.jobs.store.StoreChange.Upsert;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.InMemoryMemoryStore;
import io.engram.store.RecordIds;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A writer restores the state the previous version wrote, when store changes were one flat record serialized by
 * Flink's POJO serializer ({@link StoreOp}). The snapshots under {@code legacy-state/} are that version's bytes
 * (commit cf92466), one per state backend, taken with its writer in a harness: tenant {@code legacy}, a gateway
 * memory in cycle {@code gw-1} at 09:50, a forget of session {@code z} asked at 09:52 (kept), and three compaction
 * changes held for the watermark (at 09:53): the upsert of summary {@code sum-a-1} made at 10:00, the delete of
 * {@code sum-b-0} at 10:05 and merge signals (1 floor violation, 2 guard refusals) at 10:06.
 */
class StoreWriterLegacyStateTest {

    private static final String TENANT = "legacy";
    private static final List<String> RELEASED = List.of("upsert sum-a-1 @" + time("10:00"), "Delete @" + time("10:05"),
            "MergeSignals @" + time("10:06"));

    private static OperatorSubtaskState earlierVersion(String backend) throws Exception {
        return snapshot("legacy-state", backend);
    }

    /** The writer's snapshot under {@code folder} of the test resources, for {@code backend}. */
    static OperatorSubtaskState snapshot(String folder, String backend) throws Exception {
        Path file = Path.of(StoreWriterLegacyStateTest.class.getResource("/" + folder + "/store-writer-" + backend
                + ".snapshot").toURI());
        return OperatorSnapshotUtil.readStateHandle(file.toString());
    }

    /** A writer on the in-memory index {@code index}, over {@code backend}'s state. */
    static KeyedOneInputStreamOperatorTestHarness<String, StoreChange, StoreChange> harness(String backend,
            String index) throws Exception {
        var harness = new KeyedOneInputStreamOperatorTestHarness<>(new StoreWriterOperator(InMemoryMemoryStore.at(index),
                StoreWriterOperatorTest.SETTINGS, StoreWriterOperatorTest.NOON), StoreChange::tenantId, Types.STRING);
        harness.setStateBackend(backend.equals("rocksdb") ? new EmbeddedRocksDBStateBackend() : new HashMapStateBackend());
        harness.setup(StoreChangeSerializer.INSTANCE);
        return harness;
    }

    private static List<String> forwarded(KeyedOneInputStreamOperatorTestHarness<String, StoreChange, StoreChange> h) {
        return StoreWriterOperatorTest.forwarded(h);
    }

    @ParameterizedTest
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void heldChangesOfTheEarlierLayoutAreAppliedInOrderWithEveryField(String backend) throws Exception {
        String index = StoreWriterOperatorTest.newIndex();
        try (var h = harness(backend, index)) {
            h.initializeState(earlierVersion(backend));
            h.open();
            MemoryRecord forgotten = MemoryRecord.of(RecordIds.turn(TENANT, "z", "t1"), TENANT, RecordType.TURN,
                    "said in the forgotten session", Instant.ofEpochMilli(time("09:40"))).session("z")
                    .embedding(new float[] {0, 1, 0}).tokens(5).build();
            h.processElement(new StreamRecord<>(new Upsert(forgotten, null), time("09:40")));
            h.processWatermark(time("12:00"));

            assertThat(forwarded(h)).as("in event-time order").containsExactlyElementsOf(RELEASED);
            MergeSignals signals = (MergeSignals) h.extractOutputValues().get(2);
            assertThat(signals).as("every field; the detector decides its cycle")
                    .isEqualTo(new MergeSignals(TENANT, "a", time("10:06"), 1, 2, null));
        }
        try (InMemoryMemoryStore store = new InMemoryMemoryStore(index)) {
            MemoryRecord summary = MemoryRecord.of("sum-a-1", TENANT, RecordType.SUMMARY, "summary one of session a",
                    Instant.ofEpochMilli(time("09:55"))).embedding(new float[] {1, 1, 0}).provenance(List.of("t1", "t2"), 1)
                    .quality(0.8, 0.2).session("a").user("ann").tokens(5).build();
            assertThat(store.find(TENANT, Map.of(), Set.of(), 10, null, true)).as("the turn of forgotten session z dropped")
                    .containsExactly(summary);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void aTenantsHeldChangesMoveToTheNewLayoutAtItsNextForgetAndSurviveTheNextSnapshot(String backend) throws Exception {
        String index = StoreWriterOperatorTest.newIndex();
        OperatorSubtaskState migrated;
        try (var h = harness(backend, index)) {
            h.initializeState(earlierVersion(backend));
            h.open();
            long requested = time("10:30");
            h.processElement(new StreamRecord<>(StoreChange.Forget.of(new ForgetEvent(TENANT, "f2", ForgetScope.SESSION,
                    "b", requested)), requested));
            h.prepareSnapshotPreBarrier(2);
            migrated = h.snapshot(2, time("10:31"));
            assertThat(forwarded(h)).as("nothing released yet").isEmpty();
        }
        try (var h = harness(backend, index)) {
            h.initializeState(migrated);
            h.open();
            h.processWatermark(time("12:00"));
            assertThat(forwarded(h)).as("each once: none left in the earlier layout").containsExactlyElementsOf(RELEASED);
        }
    }
}
