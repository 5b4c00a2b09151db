package io.engram.jobs.collapse;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.engram.jobs.store.OpenSearchMemoryStore;
import io.engram.jobs.store.RecordIds;
import io.engram.jobs.store.RetryPolicy;
import io.engram.jobs.store.StoreOp;
import io.engram.model.collapse.CollapseConfig;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedServicesExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The detector keeps a tenant's store shape on the heap between barriers and writes it to keyed state at the
 * barrier: a snapshot taken mid-cycle and restored into a new operator (on the heap and on RocksDB) must give
 * the same cycle row as if nothing had happened.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class CollapseDetectorOperatorTest {

    private static final String TENANT = "detector-op";
    private static final String INDEX = "engram-memories-detector-op";
    private static final long T0 = Instant.parse("2026-11-20T10:00:00Z").toEpochMilli();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static String openSearchUrl;

    @BeforeAll
    static void index(EmbeddedOpenSearch openSearch) {
        openSearchUrl = openSearch.httpUrl();
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearchUrl, INDEX, RetryPolicy.DEFAULT)) {
            store.ensureIndex(384);
        }
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, StoreOp, String> harness(String backend) throws Exception {
        var harness = new KeyedOneInputStreamOperatorTestHarness<>(new CollapseDetectorOperator(
                new CollapseDetectorFunction(openSearchUrl, INDEX, CollapseConfig.DEFAULT, Duration.ofMinutes(10))),
                StoreOp::tenantId, Types.STRING);
        StateBackend state = backend.equals("rocksdb") ? new EmbeddedRocksDBStateBackend() : new HashMapStateBackend();
        harness.setStateBackend(state);
        return harness;
    }

    private static StoreOp memory(int i, long ts) {
        String id = RecordIds.memory(TENANT, "m" + i);
        return StoreOp.upsert(new MemoryRecord(id, TENANT, RecordType.MEMORY, null, "memory number " + i + " about invoices",
                null, List.of(), 0, null, null, null, null, null, null, null, null, null, null, 5, Instant.ofEpochMilli(ts)), "c0");
    }

    private static void feed(KeyedOneInputStreamOperatorTestHarness<String, StoreOp, String> h, StoreOp op) throws Exception {
        h.processElement(new StreamRecord<>(op, op.tsMillis()));
    }

    private static JsonNode onlyRow(KeyedOneInputStreamOperatorTestHarness<String, StoreOp, String> h) throws Exception {
        List<String> rows = new ArrayList<>(h.extractOutputValues());
        assertThat(rows).hasSize(1);
        return JSON.readTree(rows.get(0));
    }

    @ParameterizedTest
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void aShapeChangedBetweenBarriersSurvivesASnapshotAndRestore(String backend) throws Exception {
        OperatorSubtaskState snapshot;
        try (var before = harness(backend)) {
            before.open();
            for (int i = 0; i < 5; i++) {
                feed(before, memory(i, T0 + i));
            }
            before.prepareSnapshotPreBarrier(1); // what the task does before every checkpoint and savepoint
            snapshot = before.snapshot(1, T0 + 10);
        }
        try (var after = harness(backend)) {
            after.initializeState(snapshot);
            after.open();
            feed(after, memory(5, T0 + 20));
            feed(after, StoreOp.delete(TENANT, RecordIds.memory(TENANT, "m0"), RecordType.MEMORY, null, T0 + 21, "c0"));
            feed(after, StoreOp.closeCycle(TENANT, "c0", "cycle_id", T0 + 30));
            JsonNode row = onlyRow(after);
            assertThat(row.path("cycle_id").asText()).isEqualTo("c0");
            assertThat(row.path("store_total").asLong()).as("5 before the snapshot, +1 -1 after").isEqualTo(5);
            assertThat(row.path("accepted_actions").asLong()).isEqualTo(7);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void changesAfterABarrierAreNotInThatSnapshot(String backend) throws Exception {
        OperatorSubtaskState snapshot;
        try (var before = harness(backend)) {
            before.open();
            feed(before, memory(0, T0));
            before.prepareSnapshotPreBarrier(1);
            snapshot = before.snapshot(1, T0 + 1);
            feed(before, memory(1, T0 + 2)); // after the barrier: lost with the task, replayed from Kafka
        }
        try (var after = harness(backend)) {
            after.initializeState(snapshot);
            after.open();
            feed(after, StoreOp.closeCycle(TENANT, "c0", "cycle_id", T0 + 30));
            assertThat(onlyRow(after).path("store_total").asLong()).isEqualTo(1);
        }
    }
}
