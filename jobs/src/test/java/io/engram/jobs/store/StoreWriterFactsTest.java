package io.engram.jobs.store;

import static io.engram.jobs.store.StoreWriterOperatorTest.time;
import static org.assertj.core.api.Assertions.assertThat;

import io.engram.jobs.ingest.ForgetEvent;
import io.engram.model.facts.FactPolicy;
import io.engram.model.facts.Retention;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.InMemoryMemoryStore;
import io.engram.store.RecordIds;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The writer keeps a tenant's supersession chains and expiries in keyed state (docs/algorithms.md, "Supersession,
 * validity and expiry"): what the store holds after chains, late arrivals, forgets, expiries and sweeps, also across
 * a snapshot and restore.
 */
class StoreWriterFactsTest {

    private static final String T = "facts";
    /** Another tenant, beside {@link #T} in the writer's keyed state and in the store. */
    private static final String B = "facts-b";
    private static final FactPolicy RETAINING_TURNS_AN_HOUR = new FactPolicy(true,
            Map.of(FactPolicy.EVERY_TENANT, new Retention(Duration.ofHours(1), null, null)));

    private final String index = StoreWriterOperatorTest.newIndex();

    private KeyedOneInputStreamOperatorTestHarness<String, StoreChange, StoreChange> harness(FactPolicy policy)
            throws Exception {
        var h = new KeyedOneInputStreamOperatorTestHarness<>(new StoreWriterOperator(InMemoryMemoryStore.at(index),
                StoreWriterOperatorTest.SETTINGS.withFacts(policy), StoreWriterOperatorTest.NOON), StoreChange::tenantId,
                Types.STRING);
        h.setStateBackend(new EmbeddedRocksDBStateBackend());
        h.setup(StoreChangeSerializer.INSTANCE);
        return h;
    }

    private static MemoryRecord.Builder memory(String id, String hhmm) {
        return MemoryRecord.of(RecordIds.memory(T, id), T, RecordType.MEMORY, "memory " + id,
                Instant.ofEpochMilli(time(hhmm))).embedding(new float[] {1, 0, 0}).tokens(2);
    }

    private static MemoryRecord city(String id, String user, String hhmm) {
        return memory(id, hhmm).user(user).key("user.city").build();
    }

    private static void write(KeyedOneInputStreamOperatorTestHarness<String, StoreChange, StoreChange> h, MemoryRecord r)
            throws Exception {
        h.processElement(new StreamRecord<>(new StoreChange.Upsert(r, null), r.ts().toEpochMilli()));
    }

    private Map<String, String> supersededBy() {
        try (InMemoryMemoryStore store = new InMemoryMemoryStore(index)) {
            Map<String, String> by = new java.util.TreeMap<>();
            store.find(T, Map.of(), Set.of(), 100, null, true).forEach(r -> by.put(r.id().substring(T.length() + 1),
                    r.supersededBy() == null ? "-" : r.supersededBy().substring(T.length() + 1) + "@" + r.supersededAt()));
            return by;
        }
    }

    @Test
    void aChainWithALateOlderMemoryAndAnotherUsersKeyIsStoredInOrder() throws Exception {
        try (var h = harness(FactPolicy.DEFAULT)) {
            h.open();
            write(h, city("m1", "ann", "09:00"));
            write(h, city("m3", "ann", "09:30"));
            write(h, city("b1", "bob", "09:40"));
            write(h, city("m2", "ann", "09:10")); // arrives after the newer m3
            write(h, memory("m4", "09:50").supersedes(List.of(RecordIds.memory(T, "m3"))).build());
        }
        assertThat(supersededBy()).containsExactly(Map.entry("b1", "-"),
                Map.entry("m1", "m2@" + Instant.ofEpochMilli(time("09:10"))),
                Map.entry("m2", "m3@" + Instant.ofEpochMilli(time("09:30"))),
                Map.entry("m3", "m4@" + Instant.ofEpochMilli(time("09:50"))), Map.entry("m4", "-"));
    }

    @Test
    void aCycleIsRefusedAndAForgottenMemoryIsNotWrittenBack() throws Exception {
        try (var h = harness(FactPolicy.DEFAULT)) {
            h.open();
            write(h, memory("a", "09:00").build());
            write(h, memory("b", "09:10").supersedes(List.of(RecordIds.memory(T, "a"))).build());
            write(h, memory("a", "09:00").supersedes(List.of(RecordIds.memory(T, "b"))).build()); // would close a cycle
            write(h, memory("x", "09:20").build());
            h.processElement(new StreamRecord<>(StoreChange.Forget.of(new ForgetEvent(T, "f1", ForgetScope.MEMORY,
                    RecordIds.memory(T, "x"), time("09:25"))), time("09:25")));
            write(h, memory("y", "09:30").supersedes(List.of(RecordIds.memory(T, "x"))).build());
        }
        assertThat(supersededBy()).containsExactly(Map.entry("a", "b@" + Instant.ofEpochMilli(time("09:10"))),
                Map.entry("b", "-"), Map.entry("y", "-"));
    }

    @Test
    void theFirstOfAChainOfExplicitSupersedesIsMarkedThoughItArrivedWithoutKeyOrEdge() throws Exception {
        try (var h = harness(FactPolicy.DEFAULT)) {
            h.open();
            // v0 carries neither key nor edge; v1 names it, v2 names v1
            String named = null;
            for (String[] version : new String[][] {{"v0", "09:00"}, {"v1", "09:10"}, {"v2", "09:20"}}) {
                MemoryRecord.Builder m = memory(version[0], version[1]);
                write(h, (named == null ? m : m.supersedes(List.of(RecordIds.memory(T, named)))).build());
                named = version[0];
            }
        }
        assertThat(supersededBy()).containsExactly(Map.entry("v0", "v1@" + Instant.ofEpochMilli(time("09:10"))),
                Map.entry("v1", "v2@" + Instant.ofEpochMilli(time("09:20"))), Map.entry("v2", "-"));
    }

    @Test
    void withSupersessionOffEveryMemoryStaysCurrent() throws Exception {
        try (var h = harness(new FactPolicy(false, Map.of()))) {
            h.open();
            write(h, city("m1", "ann", "09:00"));
            write(h, city("m2", "ann", "09:10"));
        }
        assertThat(supersededBy()).containsExactly(Map.entry("m1", "-"), Map.entry("m2", "-"));
    }

    @Test
    void expiriesAndRetentionRemoveByEventTimeAcrossARestoreWithAnAuditRow() throws Exception {
        OperatorSubtaskState snapshot;
        try (var h = harness(RETAINING_TURNS_AN_HOUR)) {
            h.open();
            write(h, memory("soon", "09:00").expiresAt(Instant.ofEpochMilli(time("10:00"))).build());
            write(h, memory("moved", "09:00").expiresAt(Instant.ofEpochMilli(time("10:00"))).build());
            write(h, memory("moved", "09:00").expiresAt(Instant.ofEpochMilli(time("12:00"))).build());
            write(h, MemoryRecord.of(RecordIds.turn(T, "s1", "t0"), T, RecordType.TURN, "hello",
                    Instant.ofEpochMilli(time("09:00"))).session("s1").tokens(1).build());
            h.processWatermark(time("09:59"));
            h.prepareSnapshotPreBarrier(1);
            snapshot = h.snapshot(1, time("09:59"));
        }
        assertThat(supersededBy()).containsOnlyKeys("moved", "s1/t0", "soon");
        try (var h = harness(RETAINING_TURNS_AN_HOUR)) {
            h.initializeState(snapshot);
            h.open();
            h.processWatermark(time("10:01"));
            assertThat(h.getSideOutput(StoreWriterOperator.FORGETS_DONE)).extracting(r -> r.getValue().scope() + " "
                    + r.getValue().target() + " " + r.getValue().recordsRemoved()).containsExactlyInAnyOrder(
                    "memory " + RecordIds.memory(T, "soon") + " 1", "retention turn 1");
            assertThat(supersededBy()).as("the swept turn stays until the checkpoint with its row completes")
                    .containsOnlyKeys("moved", "s1/t0");
            completeCheckpoint(h, 2);
            assertThat(supersededBy()).containsOnlyKeys("moved");
        }
    }

    @Test
    void aQuietTenantsExpiriesAndSweepsFollowTheWallClockOnceEachWhenEventTimeStands() throws Exception {
        long grace = StoreWriterOperatorTest.SETTINGS.wallClockGrace().toMillis();
        assertThat(grace).as("out-of-orderness and idleness, 5 s and 10 s").isEqualTo(15_000);
        try (var h = harness(RETAINING_TURNS_AN_HOUR)) {
            h.open();
            write(h, memory("soon", "09:00").expiresAt(Instant.ofEpochMilli(time("10:00"))).build());
            write(h, memory("later", "09:00").expiresAt(Instant.ofEpochMilli(time("11:00"))).build());
            write(h, MemoryRecord.of(RecordIds.turn(T, "s1", "t0"), T, RecordType.TURN, "hello",
                    Instant.ofEpochMilli(time("09:00"))).session("s1").tokens(1).build());
            // the tenant writes nothing more, and no watermark comes: only the wall clock moves
            h.setProcessingTime(time("10:00") + grace - 1);
            assertThat(supersededBy()).containsOnlyKeys("later", "s1/t0", "soon");
            h.setProcessingTime(time("10:00") + grace);
            completeCheckpoint(h, 1);
            assertThat(supersededBy()).as("expired and swept by the wall clock").containsOnlyKeys("later");
            h.processWatermark(time("10:30")); // event time catches up: each is done already
            assertThat(h.getSideOutput(StoreWriterOperator.FORGETS_DONE)).extracting(r -> r.getValue().scope() + " "
                    + r.getValue().target() + " " + r.getValue().recordsRemoved() + " @" + r.getTimestamp())
                    .containsExactlyInAnyOrder("memory " + RecordIds.memory(T, "soon") + " 1 @" + time("10:00"),
                            "retention turn 1 @" + time("10:00"));
            h.setProcessingTime(time("11:00") + grace);
            assertThat(supersededBy()).isEmpty();
        }
    }

    private static void completeCheckpoint(KeyedOneInputStreamOperatorTestHarness<String, StoreChange, StoreChange> h,
                                           long id) throws Exception {
        h.prepareSnapshotPreBarrier(id);
        h.snapshot(id, id);
        h.notifyOfCompletedCheckpoint(id);
    }

    private static List<String> rows(KeyedOneInputStreamOperatorTestHarness<String, StoreChange, StoreChange> h) {
        var rows = h.getSideOutput(StoreWriterOperator.FORGETS_DONE);
        return rows == null ? List.of() : rows.stream().map(r -> r.getValue().forgetId() + " "
                + r.getValue().recordsRemoved()).toList();
    }

    /**
     * The task dies after a sweep counted a turn and emitted its row: restored from the checkpoint before the sweep,
     * the replay emits the same row (an upsert of the same id) with the same count; restored from the checkpoint
     * after it, the waiting delete is done at the start and no second row comes. Either way the turn goes, and the
     * row says 1.
     */
    @Test
    void aRetentionRowIsWrittenOnceWithItsDeleteWhereverTheTaskDies() throws Exception {
        String row = "retention/turn@" + Instant.ofEpochMilli(time("10:00")) + " 1";
        OperatorSubtaskState beforeTheSweep;
        OperatorSubtaskState afterTheSweep;
        try (var h = harness(RETAINING_TURNS_AN_HOUR)) {
            h.open();
            write(h, MemoryRecord.of(RecordIds.turn(T, "s1", "t0"), T, RecordType.TURN, "hello",
                    Instant.ofEpochMilli(time("09:00"))).session("s1").tokens(1).build());
            h.processWatermark(time("09:59"));
            h.prepareSnapshotPreBarrier(1);
            beforeTheSweep = h.snapshot(1, 1);
            h.processWatermark(time("10:01"));
            assertThat(rows(h)).containsExactly(row);
            h.prepareSnapshotPreBarrier(2);
            afterTheSweep = h.snapshot(2, 2);
        } // killed before checkpoint 2 was known complete: nothing deleted yet
        assertThat(supersededBy()).containsOnlyKeys("s1/t0");
        try (var h = harness(RETAINING_TURNS_AN_HOUR)) {
            h.initializeState(beforeTheSweep);
            h.open();
            h.processWatermark(time("10:01"));
            assertThat(rows(h)).as("the replayed sweep's row: the same id, the same count").containsExactly(row);
        } // killed again before its checkpoint
        try (var h = harness(RETAINING_TURNS_AN_HOUR)) {
            h.initializeState(afterTheSweep);
            h.open();
            assertThat(supersededBy()).as("the restored checkpoint's waiting delete, done at the start").isEmpty();
            h.processWatermark(time("10:30"));
            assertThat(rows(h)).as("no second row").isEmpty();
        }
    }

    private static MemoryRecord.Builder memoryOf(String tenant, String id, String hhmm) {
        return MemoryRecord.of(RecordIds.memory(tenant, id), tenant, RecordType.MEMORY, "memory " + id,
                Instant.ofEpochMilli(time(hhmm))).embedding(new float[] {1, 0, 0}).tokens(2);
    }

    /** Per tenant: its stored records by store id, each with the store id of what supersedes it ("-" for none). */
    private Map<String, Map<String, String>> stored() {
        try (InMemoryMemoryStore store = new InMemoryMemoryStore(index)) {
            Map<String, Map<String, String>> byTenant = new java.util.TreeMap<>();
            for (String tenant : List.of(T, B)) {
                Map<String, String> by = new java.util.TreeMap<>();
                store.find(tenant, Map.of(), Set.of(), 100, null, true).forEach(r -> by.put(r.id(),
                        r.supersededBy() == null ? "-" : r.supersededBy()));
                byTenant.put(tenant, by);
            }
            return byTenant;
        }
    }

    /**
     * A tenant's deletion, and the task dying after it before the next checkpoint: restored from the checkpoint
     * before it, the replayed deletion finds nothing more and sends its row again (the same id, whose upsert keeps
     * the first completion). Its facts stay forgotten (a memory said after it supersedes none of them), its pending
     * expiries never fire by either clock, what it said before the deletion and read later is dropped; the other
     * tenant's memories, expiries and sweeps go on as before.
     */
    @Test
    void aDeletedTenantsRecordsFactsAndExpiriesGoOnceAcrossARestoreAndAnotherTenantsStay() throws Exception {
        long grace = StoreWriterOperatorTest.SETTINGS.wallClockGrace().toMillis();
        StreamRecord<StoreChange> deletion = new StreamRecord<>(StoreChange.Forget.of(new ForgetEvent(T, "f-tenant",
                ForgetScope.TENANT, T, time("09:30"))), time("09:30"));
        OperatorSubtaskState beforeTheDeletion;
        try (var h = harness(RETAINING_TURNS_AN_HOUR)) {
            h.open();
            for (String tenant : List.of(T, B)) {
                write(h, memoryOf(tenant, "m1", "09:00").user("ann").key("user.city").build());
                write(h, memoryOf(tenant, "m2", "09:10").user("ann").key("user.city").build());
                write(h, memoryOf(tenant, "soon", "09:00").expiresAt(Instant.ofEpochMilli(time("10:00"))).build());
                write(h, MemoryRecord.of(RecordIds.turn(tenant, "s1", "t0"), tenant, RecordType.TURN, "hello",
                        Instant.ofEpochMilli(time("09:05"))).session("s1").tokens(1).build());
            }
            h.processWatermark(time("09:20"));
            h.prepareSnapshotPreBarrier(1);
            beforeTheDeletion = h.snapshot(1, 1);
            h.processElement(deletion);
            assertThat(rows(h)).containsExactly("f-tenant 4");
            assertThat(stored().get(T)).isEmpty();
        } // killed before checkpoint 2
        try (var h = harness(RETAINING_TURNS_AN_HOUR)) {
            h.initializeState(beforeTheDeletion);
            h.open();
            h.processElement(deletion); // replayed from the input
            write(h, memoryOf(T, "late", "09:20").build()); // said before the deletion, read after it
            write(h, memoryOf(T, "m3", "09:40").user("ann").key("user.city").build()); // said after it
            h.processWatermark(time("11:00"));
            h.setProcessingTime(time("11:00") + grace);
            completeCheckpoint(h, 2);
            assertThat(rows(h)).containsExactlyInAnyOrder("f-tenant 0",
                    "expiry/" + RecordIds.memory(B, "soon") + "@" + Instant.ofEpochMilli(time("10:00")) + " 1",
                    "retention/turn@" + Instant.ofEpochMilli(time("10:05")) + " 1");
            assertThat(h.getSideOutput(StoreWriterOperator.FORGETS_DONE)).filteredOn(r -> r.getValue().tenantId().equals(T))
                    .singleElement().satisfies(r -> assertThat(r.getValue().scope() + " " + r.getValue().target())
                            .isEqualTo("tenant " + T));
        }
        assertThat(stored()).containsExactly(
                Map.entry(T, Map.of(RecordIds.memory(T, "m3"), "-")),
                Map.entry(B, Map.of(RecordIds.memory(B, "m1"), RecordIds.memory(B, "m2"), RecordIds.memory(B, "m2"), "-")));
    }
}
