package io.engram.jobs.collapse;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.jobs.store.StoreChange;
import io.engram.jobs.store.StoreChange.Delete;
import io.engram.jobs.store.StoreChange.Upsert;
import io.engram.model.collapse.CollapseConfig;
import io.engram.model.collapse.CycleMetrics;
import io.engram.model.collapse.StoreShape;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.InMemoryMemoryStore;
import io.engram.store.RecordIds;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The detector keeps a tenant's store shape on the heap between barriers and writes it to keyed state at the
 * barrier: a snapshot taken mid-cycle and restored into a new operator (on the heap and on RocksDB) must give
 * the same cycle row as if nothing had happened, canary scores included, whatever the store received since. The
 * store is the in-memory one, held to OpenSearch's by the store's contract test.
 */
class CollapseDetectorOperatorTest {

    private static final String TENANT = "detector-op";
    private static final String INDEX = "engram-memories-detector-op-" + java.util.UUID.randomUUID();
    private static final long T0 = Instant.parse("2026-11-20T10:00:00Z").toEpochMilli();

    @BeforeAll
    static void index() {
        try (InMemoryMemoryStore store = new InMemoryMemoryStore(INDEX)) {
            store.ensureIndex(EmbeddingModel.ALL_MINILM_L6_V2.id(), EmbeddingModel.DIMENSION);
        }
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, StoreChange, CycleMetrics> harness(String backend) throws Exception {
        return harness(backend, detector(CollapseDetectorSettings.HELD_SHAPE_RECORDS));
    }

    private static CollapseDetectorFunction detector(long heldShapeRecords) {
        return new CollapseDetectorFunction(InMemoryMemoryStore.at(INDEX),
                new CollapseDetectorSettings(CollapseConfig.DEFAULT, Duration.ofMinutes(10), true, heldShapeRecords,
                        Duration.ofSeconds(15)));
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, StoreChange, CycleMetrics> harness(
            String backend, CollapseDetectorFunction detector) throws Exception {
        var harness = new KeyedOneInputStreamOperatorTestHarness<>(new CollapseDetectorOperator(detector),
                StoreChange::tenantId, Types.STRING);
        StateBackend state = backend.equals("rocksdb") ? new EmbeddedRocksDBStateBackend() : new HashMapStateBackend();
        harness.setStateBackend(state);
        harness.setup(DetectorSerializers.CycleMetricsSerializer.INSTANCE); // the pipeline's typed seam
        return harness;
    }

    /** A new operator with empty state, opened. */
    private static KeyedOneInputStreamOperatorTestHarness<String, StoreChange, CycleMetrics> opened(String backend) throws Exception {
        var harness = harness(backend);
        harness.open();
        return harness;
    }

    /** A new operator restored from a snapshot and opened, as a restarted task is. */
    private static KeyedOneInputStreamOperatorTestHarness<String, StoreChange, CycleMetrics> restored(String backend, OperatorSubtaskState snapshot) throws Exception {
        var after = harness(backend);
        after.initializeState(snapshot);
        after.open();
        return after;
    }

    /** Checkpoint 1 as the task takes it: what it does before every checkpoint and savepoint, then the snapshot. */
    private static OperatorSubtaskState checkpoint(KeyedOneInputStreamOperatorTestHarness<String, StoreChange, CycleMetrics> h, long ts) throws Exception {
        h.prepareSnapshotPreBarrier(1);
        return h.snapshot(1, ts);
    }

    private static StoreChange memory(int i, long ts) {
        String id = RecordIds.memory(TENANT, "m" + i);
        return new Upsert(MemoryRecord.of(id, TENANT, RecordType.MEMORY, "memory number " + i + " about invoices",
                Instant.ofEpochMilli(ts)).tokens(5).build(), "c0");
    }

    /** A change, and the watermark passing its time: the detector applies it then. */
    private static void feed(KeyedOneInputStreamOperatorTestHarness<String, StoreChange, CycleMetrics> h, StoreChange change) throws Exception {
        h.processElement(new StreamRecord<>(change, change.tsMillis()));
        h.processWatermark(change.tsMillis());
    }

    /** The first change of the tenant's gateway cycle c1 (one that writes nothing): it closes c0. */
    private static StoreChange nextCycle(String tenant, long ts) {
        return new StoreChange.MergeSignals(tenant, null, ts, 0, 0, "c1");
    }

    private static CycleMetrics onlyRow(KeyedOneInputStreamOperatorTestHarness<String, StoreChange, CycleMetrics> h) {
        List<CycleMetrics> rows = new ArrayList<>(h.extractOutputValues());
        assertThat(rows).hasSize(1);
        return rows.get(0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void aShapeChangedBetweenBarriersSurvivesASnapshotAndRestore(String backend) throws Exception {
        OperatorSubtaskState snapshot;
        try (var before = opened(backend)) {
            for (int i = 0; i < 5; i++) {
                feed(before, memory(i, T0 + i));
            }
            snapshot = checkpoint(before, T0 + 10);
        }
        try (var after = restored(backend, snapshot)) {
            feed(after, memory(5, T0 + 20));
            feed(after, new Delete(TENANT, RecordIds.memory(TENANT, "m0"), RecordType.MEMORY, null, T0 + 21, "c0"));
            feed(after, nextCycle(TENANT, T0 + 30));
            CycleMetrics row = onlyRow(after);
            assertThat(row.cycleId()).isEqualTo("c0");
            assertThat(row.storeTotal()).as("5 before the snapshot, +1 -1 after").isEqualTo(5);
            assertThat(row.acceptedActions()).isEqualTo(7);
        }
    }

    /**
     * One tenant's changes over three cycles: gateway memories without a cycle id and compaction's summaries (of two
     * sessions) in the first two, parted by quiet gaps, then a gateway-named cycle a summary joins.
     */
    private static List<StoreChange> threeCycles(String tenant) {
        List<StoreChange> changes = new ArrayList<>();
        long minute = 60_000;
        for (int i = 0; i < 6; i++) {
            changes.add(invoiceMemory(tenant, "a" + i, "note " + i + " about " + TOPICS[i % 7] + " and the harbour",
                    T0 + i * minute, null));
        }
        changes.add(summaryOf(tenant, "s1", "the harbour and invoices discussed", T0 + 3 * minute));
        for (int i = 0; i < 5; i++) {
            changes.add(invoiceMemory(tenant, "b" + i, "later note " + i + " about " + TOPICS[(i + 3) % 7],
                    T0 + (20 + i) * minute, null));
        }
        changes.add(summaryOf(tenant, "s2", "budget and travel summarised", T0 + 22 * minute));
        changes.add(new Delete(tenant, RecordIds.memory(tenant, "a0"), RecordType.MEMORY, null, T0 + 23 * minute, null));
        changes.add(invoiceMemory(tenant, "g0", "the gateway's cycle starts with hiring", T0 + 40 * minute, "g1"));
        changes.add(summaryOf(tenant, "s3", "hiring and security summarised", T0 + 41 * minute));
        changes.add(invoiceMemory(tenant, "g1", "the gateway's cycle ends with security", T0 + 42 * minute, "g1"));
        return changes;
    }

    private static StoreChange summaryOf(String tenant, String session, String text, long ts) {
        return new Upsert(MemoryRecord.of(tenant + "-summary-" + session, tenant, RecordType.SUMMARY, text,
                Instant.ofEpochMilli(ts)).session(session).provenance(List.of(session + "-t1"), 1).quality(0.8, 0.2)
                .tokens(5).build(), null);
    }

    /** The rows and minted canaries of a run: what PostgreSQL would hold. */
    private static List<String> outputs(KeyedOneInputStreamOperatorTestHarness<String, StoreChange, CycleMetrics> h) {
        List<String> out = new ArrayList<>();
        h.extractOutputValues().forEach(row -> out.add(row.toString()));
        var minted = h.getSideOutput(CollapseDetectorFunction.CANARIES);
        if (minted != null) {
            minted.forEach(c -> out.add(c.getValue().toString()));
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void changesArrivingInAnyOrderBeforeTheWatermarkCloseTheSameCycles(String backend) throws Exception {
        String tenant = "detector-order";
        List<StoreChange> changes = threeCycles(tenant);
        List<String> inEventTime;
        try (var h = opened(backend)) {
            for (StoreChange c : changes) {
                feed(h, c);
            }
            h.processWatermark(T0 + 3_600_000);
            inEventTime = outputs(h);
        }
        assertThat(inEventTime.stream().filter(line -> line.startsWith("CycleMetrics")))
                .as("three cycles: two closed by quiet gaps, the gateway's by the end of its quiet").hasSize(3)
                .anySatisfy(row -> assertThat(row).contains("cycleId=g1"))
                .allSatisfy(row -> assertThat(row).contains("closeReason=quiet_gap").doesNotContain("storeTotal=0,"));
        assertThat(inEventTime.get(0)).as("the first cycle: six memories and a summary").contains("storeTotal=7,");
        assertThat(inEventTime.get(1)).as("then five memories, a summary, one memory deleted").contains("storeTotal=12,");
        for (long seed = 1; seed <= 3; seed++) {
            List<StoreChange> shuffled = new ArrayList<>(changes);
            java.util.Collections.shuffle(shuffled, new java.util.Random(seed));
            try (var h = opened(backend)) {
                for (StoreChange c : shuffled) { // partitions and compaction subtasks racing ahead of each other
                    h.processElement(new StreamRecord<>(c, c.tsMillis()));
                }
                h.processWatermark(T0 + 3_600_000);
                assertThat(outputs(h)).as("arrival order " + seed).isEqualTo(inEventTime);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void aLiveRunsCycleClosesByTheWallClockWhenEventTimeStandsStill(String backend) throws Exception {
        try (var h = opened(backend)) {
            h.setProcessingTime(1_000);
            for (int i = 0; i < 3; i++) { // no watermark follows: the input went quiet
                h.processElement(new StreamRecord<>(memory(i, T0 + i), T0 + i));
            }
            h.processElement(new StreamRecord<>(nextCycle(TENANT, T0 + 10), T0 + 10));
            h.setProcessingTime(1_000 + 14_000);
            assertThat(h.extractOutputValues()).as("within the grace: still waiting for event time").isEmpty();
            h.setProcessingTime(1_000 + 16_000);
            CycleMetrics row = onlyRow(h);
            assertThat(row.cycleId()).isEqualTo("c0");
            assertThat(row.storeTotal()).isEqualTo(3);
            h.processWatermark(T0 + 60_000); // event time catches up: nothing is applied twice
            assertThat(h.extractOutputValues()).hasSize(1);
        }
    }

    private static final String[] TOPICS = {"invoices", "harbour", "canteen", "budget", "travel", "hiring", "security"};

    /** Thirty tenants of twenty records each, written interleaved (every tenant active between two barriers). */
    private static List<StoreChange> manyTenants() {
        List<StoreChange> changes = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            for (int t = 0; t < 30; t++) {
                String text = "note number " + i + " about " + TOPICS[(i + t) % 7] + " and " + TOPICS[(3 * i + t) % 7]
                        + " for team" + t;
                changes.add(invoiceMemory("detector-many-" + t, "m" + i, text, T0 + i * 30L + t, "c0"));
            }
        }
        for (int t = 0; t < 30; t++) {
            changes.add(new Delete("detector-many-" + t, RecordIds.memory("detector-many-" + t, "m" + t % 20),
                    RecordType.MEMORY, null, T0 + 700 + t, "c0"));
            changes.add(nextCycle("detector-many-" + t, T0 + 800 + t));
        }
        return changes;
    }

    private static List<CycleMetrics> byTenant(List<CycleMetrics> rows) {
        return rows.stream().sorted(java.util.Comparator.comparing(CycleMetrics::tenantId)).toList();
    }

    @ParameterizedTest
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void theShapesHeldOnTheHeapStayWithinTheirBoundAndScoreAsIfAllWereHeld(String backend) throws Exception {
        List<StoreChange> changes = manyTenants();
        List<CycleMetrics> unbounded;
        try (var all = harness(backend, detector(Long.MAX_VALUE))) {
            all.open();
            changes.forEach(c -> feedUnchecked(all, c));
            unbounded = byTenant(new ArrayList<>(all.extractOutputValues()));
        }
        CollapseDetectorFunction bounded = detector(100);
        OperatorSubtaskState snapshot;
        try (var before = harness(backend, bounded)) {
            before.open();
            long mostHeld = 0;
            for (StoreChange c : changes.subList(0, 400)) {
                feed(before, c);
                mostHeld = Math.max(mostHeld, bounded.heldShapeRecords());
            }
            assertThat(mostHeld).as("30 tenants' 400 records written, at most 100 held").isBetween(1L, 100L);
            snapshot = checkpoint(before, T0 + 600);
            assertThat(bounded.heldShapeRecords()).as("none held past a barrier").isZero();
        }
        CollapseDetectorFunction restoredDetector = detector(100);
        try (var after = harness(backend, restoredDetector)) {
            after.initializeState(snapshot);
            after.open();
            for (StoreChange c : changes.subList(400, changes.size())) {
                feed(after, c);
                assertThat(restoredDetector.heldShapeRecords()).isLessThanOrEqualTo(100);
            }
            List<CycleMetrics> rows = byTenant(new ArrayList<>(after.extractOutputValues()));
            assertThat(rows).hasSize(30);
            assertThat(rows.get(0).storeTotal()).isEqualTo(19);
            assertThat(rows.get(0).canaryCount()).isPositive();
            assertThat(rows).as("the same rows, canary ranks included, as with every shape held").isEqualTo(unbounded);
        }
    }

    /** The changes the snapshots under {@code detector-state/} hold: 8 tenants, 10 memories each, cycle c0 open. */
    private static List<StoreChange> beforeTheSnapshot() {
        return legacyTenants(0, 10);
    }

    private static List<StoreChange> legacyTenants(int from, int to) {
        List<StoreChange> changes = new ArrayList<>();
        for (int i = from; i < to; i++) {
            for (int t = 0; t < 8; t++) {
                String text = "note number " + i + " about " + TOPICS[(i + t) % 7] + " and " + TOPICS[(3 * i + t) % 7]
                        + " for team" + t;
                changes.add(invoiceMemory("legacy-" + t, "m" + i, text, T0 + i * 10L + t, "c0"));
            }
        }
        return changes;
    }

    /**
     * The snapshots under {@code detector-state/} are the bytes of the version before shapes were bounded (commit
     * 404dc88), taken mid-cycle with its detector in a harness after {@link #beforeTheSnapshot}: restored into a
     * detector holding at most 30 entries, they close the same cycles as one uninterrupted, unbounded run.
     */
    @ParameterizedTest
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void aSnapshotOfTheVersionBeforeTheBoundRestoresAndScoresAsAnUninterruptedRun(String backend) throws Exception {
        List<StoreChange> after = new ArrayList<>(legacyTenants(10, 20));
        for (int t = 0; t < 8; t++) {
            after.add(nextCycle("legacy-" + t, T0 + 500 + t));
        }
        List<CycleMetrics> uninterrupted;
        try (var all = harness(backend, detector(Long.MAX_VALUE))) {
            all.open();
            beforeTheSnapshot().forEach(c -> feedUnchecked(all, c));
            after.forEach(c -> feedUnchecked(all, c));
            uninterrupted = byTenant(new ArrayList<>(all.extractOutputValues()));
        }
        CollapseDetectorFunction bounded = detector(30);
        try (var restored = harness(backend, bounded)) {
            restored.initializeState(OperatorSnapshotUtil.readStateHandle(Path.of(CollapseDetectorOperatorTest.class
                    .getResource("/detector-state/collapse-detector-" + backend + ".snapshot").toURI()).toString()));
            restored.open();
            for (StoreChange c : after) {
                feed(restored, c);
                assertThat(bounded.heldShapeRecords()).isLessThanOrEqualTo(30);
            }
            List<CycleMetrics> rows = byTenant(new ArrayList<>(restored.extractOutputValues()));
            assertThat(rows).extracting(CycleMetrics::storeTotal).containsOnly(20L).hasSize(8);
            assertThat(rows).isEqualTo(uninterrupted);
        }
    }

    private static void feedUnchecked(KeyedOneInputStreamOperatorTestHarness<String, StoreChange, CycleMetrics> h,
                                      StoreChange change) {
        try {
            feed(h, change);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void changesAfterABarrierAreNotInThatSnapshot(String backend) throws Exception {
        OperatorSubtaskState snapshot;
        try (var before = opened(backend)) {
            feed(before, memory(0, T0));
            snapshot = checkpoint(before, T0 + 1);
            feed(before, memory(1, T0 + 2)); // after the barrier: lost with the task, replayed from Kafka
        }
        try (var after = restored(backend, snapshot)) {
            feed(after, nextCycle(TENANT, T0 + 30));
            assertThat(onlyRow(after).storeTotal()).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void aCanarySetAndHistoryHeldAsJsonByAnEarlierVersionCarryOn(String backend) throws Exception {
        // what a savepoint of the version before typed state holds for a tenant: its canary set and history
        // window as JSON text under the old state names
        String canarySet = "{\"id\":\"cs-earlier\",\"canaries\":[{\"id\":\"c000\",\"anchor\":\""
                + RecordIds.memory(TENANT, "m0") + "\",\"type\":\"memory\",\"query\":\"memory number about invoices\"}]}";
        List<String> history = new ArrayList<>();
        for (int c = 0; c < 5; c++) { // five healthy rows of that set: recall 1.0
            history.add("{\"tenant_id\":\"" + TENANT + "\",\"cycle_id\":\"h" + c + "\",\"ts\":\"2026-11-19T10:00:00Z\","
                    + "\"close_reason\":\"cycle_id\",\"canary_set_id\":\"cs-earlier\",\"canary_count\":1,\"mean_recall\":1.0,"
                    + "\"mean_ndcg\":1.0,\"mean_mrr\":1.0,\"canary_ranks_json\":\"[[\\\"c000\\\",0]]\",\"store_total\":1,"
                    + "\"store_by_type_json\":\"{\\\"memory\\\":1}\",\"distinct_content_ratio\":1.0,"
                    + "\"mean_bigram_diversity\":1.0,\"over_generation_count\":0,\"accepted_actions\":1,"
                    + "\"merge_floor_violations\":0,\"generation_guard_refusals\":0,\"alerts_json\":\"[]\"}");
        }
        try (var harness = opened(backend)) {
            @SuppressWarnings("unchecked")
            var operator = (org.apache.flink.streaming.api.operators.KeyedProcessOperator<String, StoreChange, CycleMetrics>)
                    harness.getOperator();
            operator.setCurrentKey(TENANT);
            var backendState = operator.getKeyedStateBackend();
            backendState.getPartitionedState(org.apache.flink.runtime.state.VoidNamespace.INSTANCE,
                    org.apache.flink.runtime.state.VoidNamespaceSerializer.INSTANCE,
                    LegacyDetectorJson.canariesDescriptor()).update(canarySet);
            backendState.getPartitionedState(org.apache.flink.runtime.state.VoidNamespace.INSTANCE,
                    org.apache.flink.runtime.state.VoidNamespaceSerializer.INSTANCE,
                    LegacyDetectorJson.historyDescriptor()).update(history);

            // m0, the canary's anchor, is not in the index: the canary misses, recall falls from 1.0 to 0
            feed(harness, memory(7, T0));
            feed(harness, nextCycle(TENANT, T0 + 30));
            CycleMetrics row = onlyRow(harness);
            assertThat(row.canarySetId()).as("the earlier set, not a new one").isEqualTo("cs-earlier");
            assertThat(row.canaryRanks()).extracting(java.util.Map.Entry::getKey).containsExactly("c000");
            assertThat(row.meanRecall()).isZero();
            assertThat(row.alerts()).as("the window of five earlier rows fires the recall alert").contains("collapse-recall");
            assertThat(harness.getSideOutput(CollapseDetectorFunction.CANARIES)).as("nothing minted").isNull();
            assertThat(harness.getSideOutput(CollapseDetectorFunction.ALERTS)).extracting(r -> r.getValue().kind().label())
                    .contains("collapse-recall");
        }
    }

    private static StoreChange invoiceMemory(String tenant, String id, String text, long ts, String cycle) {
        return new Upsert(MemoryRecord.of(RecordIds.memory(tenant, id), tenant, RecordType.MEMORY, text,
                Instant.ofEpochMilli(ts)).tokens(8).build(), cycle);
    }

    @ParameterizedTest
    @ValueSource(strings = {"hashmap", "rocksdb"})
    void aCycleClosedAgainAfterARestoreScoresAsItDidTheFirstTime(String backend) throws Exception {
        String tenant = "detector-replay";
        List<StoreChange> cycle0 = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            cycle0.add(invoiceMemory(tenant, "m" + i, "memory number " + i + " about invoices", T0 + i, "c0"));
        }
        // the next cycle's records out-rank every anchor for its query: "memory number about invoices"
        List<MemoryRecord> cycle1 = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            cycle1.add(MemoryRecord.of(RecordIds.memory(tenant, "later" + i), tenant, RecordType.MEMORY,
                    "number invoices memory about invoices number", Instant.ofEpochMilli(T0 + 100 + i)).tokens(6).build());
        }
        OperatorSubtaskState snapshot;
        CycleMetrics first;
        try (var before = opened(backend)) {
            for (StoreChange op : cycle0.subList(0, 6)) {
                feed(before, op);
            }
            snapshot = checkpoint(before, T0 + 6);
            for (StoreChange op : cycle0.subList(6, 12)) {
                feed(before, op);
            }
            feed(before, nextCycle(tenant, T0 + 50));
            first = onlyRow(before);
        }
        // the killed run had written the next cycle's records before it died: the store holds them now
        try (InMemoryMemoryStore store = new InMemoryMemoryStore(INDEX)) {
            store.upsert(cycle1);
            store.refresh();
        }
        try (var after = restored(backend, snapshot)) {
            for (StoreChange op : cycle0.subList(6, 12)) { // replayed from Kafka
                feed(after, op);
            }
            feed(after, nextCycle(tenant, T0 + 50));
            CycleMetrics again = onlyRow(after);
            // twelve equal scores rank by id: m8 and m9 fall out of the top 10
            assertThat(first.meanRecall()).as("the canaries find their anchors").isEqualTo(10 / 12.0);
            assertThat(again.canaryRanks()).isEqualTo(first.canaryRanks());
            assertThat(again).isEqualTo(first);
        }
    }

    @org.junit.jupiter.api.Test
    void aShapeOfTheFirstStateFormatGetsItsWordsFromTheStoreOnce() throws Exception {
        String tenant = "detector-upgrade";
        List<MemoryRecord> records = new ArrayList<>();
        StoreShape restored = new StoreShape(CollapseConfig.DEFAULT.maxGeneration());
        for (int i = 0; i < 3; i++) {
            MemoryRecord r = MemoryRecord.of(RecordIds.memory(tenant, "m" + i), tenant, RecordType.MEMORY,
                    "the harbour office move number " + i + " planned by facilities" + i, Instant.ofEpochMilli(T0)).tokens(9).build();
            records.add(r);
            StoreShape.Entry e = StoreShape.Entry.of(r.id(), r.type(), r.text(), 0);
            // what the first format held of it: no words, no source refs
            restored.upsert(new StoreShape.Entry(e.id(), e.type(), e.contentHash(), e.generation(), e.bigramDiversity(),
                    e.canaryQuery(), e.length(), e.sampleKey(), null, null, new long[0]));
        }
        try (InMemoryMemoryStore store = new InMemoryMemoryStore(INDEX)) {
            store.upsert(records);
        }
        try (var harness = opened("rocksdb")) {
            @SuppressWarnings("unchecked")
            var operator = (org.apache.flink.streaming.api.operators.KeyedProcessOperator<String, StoreChange, CycleMetrics>)
                    harness.getOperator();
            operator.setCurrentKey(tenant);
            operator.getKeyedStateBackend().getPartitionedState(org.apache.flink.runtime.state.VoidNamespace.INSTANCE,
                    org.apache.flink.runtime.state.VoidNamespaceSerializer.INSTANCE,
                    new ValueStateDescriptor<>("store-shape", StoreShapeSerializer.INSTANCE)).update(restored);

            feed(harness, invoiceMemory(tenant, "m3", "the canteen menu changes weekly", T0 + 1, "c0"));
            feed(harness, nextCycle(tenant, T0 + 30));
            CycleMetrics row = onlyRow(harness);
            assertThat(row.storeTotal()).isEqualTo(4);
            assertThat(row.canaryCount()).isEqualTo(4);
            assertThat(row.meanRecall()).as("every anchor found by its words, read back from the store").isEqualTo(1.0);
        }
    }
}
