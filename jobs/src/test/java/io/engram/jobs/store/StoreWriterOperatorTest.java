package io.engram.jobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.jobs.PipelineConfig;
import io.engram.jobs.ingest.ForgetEvent;
import io.engram.jobs.store.StoreChange.Upsert;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.InMemoryMemoryStore;
import io.engram.store.RecordIds;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The writer applies a tenant's compaction changes in event-time order whatever order its sessions' changes
 * arrive in, so the store receives them in an order that depends on the input only; gateway writes do not wait. It
 * writes to the in-memory store, which the store's contract test holds to OpenSearch's.
 */
class StoreWriterOperatorTest {

    static final String TENANT = "writer-order";
    static final Instant DAY = Instant.parse("2026-11-20T00:00:00Z");
    /** The operator's wall clock: when forgets complete. */
    static final Clock NOON = Clock.fixed(DAY.plus(Duration.ofHours(12)), ZoneOffset.UTC);
    static final StoreWriterSettings SETTINGS = StoreWriterSettings.of(PipelineConfig.defaults())
            .withIndex("test-vectors", 3).withBulk(1, Duration.ofMillis(50));

    static long time(String hhmm) {
        return DAY.plus(Duration.ofMinutes(Integer.parseInt(hhmm.substring(0, 2)) * 60L
                + Integer.parseInt(hhmm.substring(3)))).toEpochMilli();
    }

    /** A summary compaction made at {@code at} (an event time), covering turns up to {@code to}. */
    private record Change(StoreChange change, long at) {
    }

    private static Change summary(String session, int n, String to, String at) {
        MemoryRecord r = MemoryRecord.of(session + "-sum-" + n, TENANT, RecordType.SUMMARY, "summary " + n + " of " + session,
                Instant.ofEpochMilli(time(to))).embedding(new float[] {1, n, 0}).provenance(List.of(session + "-t" + n), 1)
                .quality(0.8, 0.2).session(session).tokens(4).build();
        return new Change(new Upsert(r, null), time(at));
    }

    // Session a's summaries come from one compaction subtask, session b's from another.
    private static final Change A1 = summary("a", 1, "09:50", "10:00");
    private static final Change A2 = summary("a", 2, "10:15", "10:20");
    private static final Change B1 = summary("b", 1, "10:00", "10:05");
    private static final Change B2 = summary("b", 2, "11:20", "11:30");

    static String newIndex() {
        return "engram-memories-writer-" + UUID.randomUUID();
    }

    static KeyedOneInputStreamOperatorTestHarness<String, StoreChange, StoreChange> harness(String index) throws Exception {
        var harness = new KeyedOneInputStreamOperatorTestHarness<>(new StoreWriterOperator(InMemoryMemoryStore.at(index),
                SETTINGS, NOON), StoreChange::tenantId, Types.STRING);
        harness.setStateBackend(new EmbeddedRocksDBStateBackend());
        harness.setup(StoreChangeSerializer.INSTANCE); // the pipeline's typed seam
        return harness;
    }

    private static void feed(KeyedOneInputStreamOperatorTestHarness<String, StoreChange, StoreChange> h, Change c)
            throws Exception {
        h.processElement(new StreamRecord<>(c.change(), c.at()));
    }

    /** What reached the detector: each change's kind and id, and the event time it carries. */
    static List<String> forwarded(KeyedOneInputStreamOperatorTestHarness<String, StoreChange, StoreChange> h) {
        return h.getOutput().stream().filter(o -> o instanceof StreamRecord<?>)
                .map(o -> describe((StoreChange) ((StreamRecord<?>) o).getValue()) + " @" + ((StreamRecord<?>) o).getTimestamp())
                .toList();
    }

    static String describe(StoreChange change) {
        if (change instanceof Upsert u) {
            return "upsert " + u.record().id();
        }
        return change.getClass().getSimpleName();
    }

    @Test
    void sessionsArrivingInEitherOrderAreWrittenInEventTimeOrder() throws Exception {
        List<String> inEventTime;
        try (var h = harness(newIndex())) {
            h.open();
            for (Change c : List.of(A1, B1, A2, B2)) {
                feed(h, c);
                h.processWatermark(c.at());
            }
            inEventTime = forwarded(h);
        }
        List<String> bAhead;
        try (var h = harness(newIndex())) {
            h.open();
            // b's subtask ran ahead: both of b's summaries arrive before a's; the watermark (the slower
            // subtask's) passes them all at the end
            for (Change c : List.of(B1, B2, A1, A2)) {
                feed(h, c);
            }
            assertThat(forwarded(h)).as("nothing applied before the watermark passes it").isEmpty();
            h.processWatermark(time("12:00"));
            bAhead = forwarded(h);
        }
        // in the time compaction made the changes, not the summaries' own (last-turn) time
        assertThat(inEventTime).containsExactly("upsert a-sum-1 @" + time("10:00"), "upsert b-sum-1 @" + time("10:05"),
                "upsert a-sum-2 @" + time("10:20"), "upsert b-sum-2 @" + time("11:30"));
        assertThat(bAhead).isEqualTo(inEventTime);
    }

    @Test
    void aChangeBehindTheWatermarkIsAppliedAtOnce() throws Exception {
        try (var h = harness(newIndex())) {
            h.open();
            h.processWatermark(Long.MAX_VALUE); // the end of event time: no timer would fire after it
            feed(h, A1);
            assertThat(forwarded(h)).containsExactly("upsert a-sum-1 @" + time("10:00"));
        }
    }

    @Test
    void waitingChangesSurviveASnapshotAndGatewayWritesDoNotWait() throws Exception {
        String index = newIndex();
        OperatorSubtaskState snapshot;
        try (var before = harness(index)) {
            before.open();
            feed(before, B1);
            before.processWatermark(time("10:01")); // before B1's time: it waits
            before.prepareSnapshotPreBarrier(1);
            snapshot = before.snapshot(1, 1);
            assertThat(forwarded(before)).isEmpty();
        }
        try (var after = harness(index)) {
            after.initializeState(snapshot);
            after.open();
            MemoryRecord memory = MemoryRecord.of(RecordIds.memory(TENANT, "m1"), TENANT, RecordType.MEMORY,
                    "the gateway remembers the invoices", Instant.ofEpochMilli(time("10:02"))).embedding(new float[] {0, 0, 1})
                    .tokens(6).build();
            after.processElement(new StreamRecord<>(new Upsert(memory, null), time("10:02")));
            assertThat(forwarded(after)).as("a gateway write is applied as it comes")
                    .containsExactly("upsert " + memory.id() + " @" + time("10:02"));
            after.processWatermark(time("10:05"));
            assertThat(forwarded(after)).hasSize(2).last().isEqualTo("upsert b-sum-1 @" + time("10:05"));
            assertThat(after.extractOutputValues()).allSatisfy(c -> assertThat(((Upsert) c).record().embedding())
                    .as("the detector gets no vectors").isNull());
        }
        try (InMemoryMemoryStore written = new InMemoryMemoryStore(index)) {
            assertThat(written.find(TENANT, Map.of(), Set.of(RecordType.SUMMARY), 10, null, true))
                    .singleElement().satisfies(s -> assertThat(s.embedding()).containsExactly(1, 1, 0));
            assertThat(written.count(TENANT, Set.of(RecordType.SUMMARY, RecordType.MEMORY))).isEqualTo(2);
        }
    }

    @Test
    void aForgetDeletesWhatIsStoredDropsWhatWaitsAndWhatArrivesLate() throws Exception {
        String index = newIndex();
        try (var h = harness(index)) {
            h.open();
            MemoryRecord turnA = MemoryRecord.of(RecordIds.turn(TENANT, "a", "t1"), TENANT, RecordType.TURN,
                    "we booked the lake cabin", Instant.ofEpochMilli(time("09:40"))).embedding(new float[] {1, 0, 0})
                    .session("a").user("ann").tokens(5).build();
            MemoryRecord turnB = MemoryRecord.of(RecordIds.turn(TENANT, "b", "t1"), TENANT, RecordType.TURN,
                    "the invoices are due friday", Instant.ofEpochMilli(time("09:41"))).embedding(new float[] {0, 1, 0})
                    .session("b").user("bob").tokens(5).build();
            h.processElement(new StreamRecord<>(new Upsert(turnA, null), time("09:40")));
            h.processElement(new StreamRecord<>(new Upsert(turnB, null), time("09:41")));
            feed(h, A1); // session a's summary waits for the watermark
            long requested = time("10:30");
            h.processElement(new StreamRecord<>(StoreChange.Forget.of(new ForgetEvent(TENANT, "f1",
                    ForgetScope.SESSION, "a", requested)), requested));
            feed(h, A2); // compaction's last summary of the session, read after the forget
            h.processWatermark(time("12:00"));

            assertThat(h.getSideOutput(StoreWriterOperator.FORGETS_DONE)).singleElement().satisfies(done -> {
                assertThat(done.getValue().forgetId()).isEqualTo("f1");
                assertThat(done.getValue().scope()).isEqualTo("session");
                assertThat(done.getValue().recordsRemoved()).isEqualTo(1); // turn a/t1; the summaries never landed
                assertThat(done.getValue().completedAtMillis()).as("the operator's clock").isEqualTo(NOON.millis());
            });
            assertThat(forwarded(h)).noneMatch(line -> line.contains("a-sum"));
        }
        try (InMemoryMemoryStore written = new InMemoryMemoryStore(index)) {
            assertThat(written.find(TENANT, Map.of(), Set.of(), 10, null, true))
                    .extracting(MemoryRecord::id).containsExactly(RecordIds.turn(TENANT, "b", "t1"));
        }
    }
}
