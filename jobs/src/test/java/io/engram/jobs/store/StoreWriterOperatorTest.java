package io.engram.jobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RecordIds;
import io.engram.store.RetryPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The writer applies a tenant's compaction changes in event-time order whatever order its sessions' changes
 * arrive in, so the quiet-gap cycles they fall into depend on the input only; gateway writes do not wait.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class StoreWriterOperatorTest {

    private static final String TENANT = "writer-order";
    private static final Instant DAY = Instant.parse("2026-11-20T00:00:00Z");
    private static String url;
    private static int run;

    @BeforeAll
    static void connect(EmbeddedOpenSearch openSearch) {
        url = openSearch.httpUrl();
    }

    /** A summary compaction made at {@code at} (an event time), covering turns up to {@code to}. */
    private record Change(StoreOp op, long at) {
    }

    private static long time(String hhmm) {
        return DAY.plus(Duration.ofMinutes(Integer.parseInt(hhmm.substring(0, 2)) * 60L
                + Integer.parseInt(hhmm.substring(3)))).toEpochMilli();
    }

    private static Change summary(String session, int n, String to, String at) {
        MemoryRecord r = MemoryRecord.of(session + "-sum-" + n, TENANT, RecordType.SUMMARY, "summary " + n + " of " + session,
                Instant.ofEpochMilli(time(to))).embedding(new float[] {1, n, 0}).provenance(List.of(session + "-t" + n), 1)
                .quality(0.8, 0.2).session(session).tokens(4).build();
        return new Change(StoreOp.upsert(r, null), time(at));
    }

    // Session a's summaries come from one compaction subtask, session b's from another.
    private static final Change A1 = summary("a", 1, "09:50", "10:00");
    private static final Change A2 = summary("a", 2, "10:15", "10:20");
    private static final Change B1 = summary("b", 1, "10:00", "10:05");
    private static final Change B2 = summary("b", 2, "11:20", "11:30");

    private static KeyedOneInputStreamOperatorTestHarness<String, StoreOp, StoreOp> harness(String index) throws Exception {
        var harness = new KeyedOneInputStreamOperatorTestHarness<>(new StoreWriterOperator(
                OpenSearchMemoryStore.at(url, index, RetryPolicy.DEFAULT), "test-vectors", 3, 1, Duration.ofMillis(50), Duration.ofMinutes(30), Duration.ofDays(30), true), StoreOp::tenantId, Types.STRING);
        harness.setStateBackend(new EmbeddedRocksDBStateBackend());
        return harness;
    }

    private static void feed(KeyedOneInputStreamOperatorTestHarness<String, StoreOp, StoreOp> h, Change c) throws Exception {
        h.processElement(new StreamRecord<>(c.op(), c.at()));
    }

    /** What reached the detector: each change's id and cycle, and the cycle closes. */
    private static List<String> forwarded(KeyedOneInputStreamOperatorTestHarness<String, StoreOp, StoreOp> h) {
        return h.extractOutputValues().stream().map(op -> op.kind() + " " + op.id() + " " + op.cycleId()).toList();
    }

    @Test
    void sessionsArrivingInEitherOrderFallIntoTheSameCycles() throws Exception {
        List<String> inEventTime;
        try (var h = harness("engram-memories-writer-order-" + run++)) {
            h.open();
            for (Change c : List.of(A1, B1, A2, B2)) {
                feed(h, c);
                h.processWatermark(c.at());
            }
            inEventTime = forwarded(h);
        }
        List<String> bAhead;
        try (var h = harness("engram-memories-writer-order-" + run++)) {
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
        // cycles are measured in the time compaction made the changes, not the summaries' own (last-turn) time
        String first = "q-" + Instant.ofEpochMilli(time("10:00"));
        String second = "q-" + Instant.ofEpochMilli(time("11:30"));
        assertThat(inEventTime).containsExactly(
                "UPSERT a-sum-1 " + first, "UPSERT b-sum-1 " + first, "UPSERT a-sum-2 " + first,
                "CLOSE_CYCLE " + first + " " + first, "UPSERT b-sum-2 " + second);
        assertThat(bAhead).isEqualTo(inEventTime);
    }

    @Test
    void aChangeBehindTheWatermarkIsAppliedAtOnce() throws Exception {
        try (var h = harness("engram-memories-writer-order-" + run++)) {
            h.open();
            h.processWatermark(Long.MAX_VALUE); // the end of event time: no timer would fire after it
            feed(h, A1);
            assertThat(forwarded(h)).containsExactly("UPSERT a-sum-1 q-" + Instant.ofEpochMilli(time("10:00")));
        }
    }

    @Test
    void waitingChangesSurviveASnapshotAndGatewayWritesDoNotWait() throws Exception {
        String index = "engram-memories-writer-order-" + run++;
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
            after.processElement(new StreamRecord<>(StoreOp.upsert(memory, null), time("10:02")));
            assertThat(forwarded(after)).as("a gateway write is applied as it comes")
                    .containsExactly("UPSERT " + memory.id() + " q-" + Instant.ofEpochMilli(time("10:02")));
            after.processWatermark(time("10:05"));
            assertThat(forwarded(after)).hasSize(2).last().isEqualTo("UPSERT b-sum-1 q-" + Instant.ofEpochMilli(time("10:02")));
        }
        try (OpenSearchMemoryStore written = new OpenSearchMemoryStore(url, index, RetryPolicy.DEFAULT)) {
            written.refresh();
            assertThat(written.count(TENANT, Set.of(RecordType.SUMMARY, RecordType.MEMORY))).isEqualTo(2);
        }
    }

    @Test
    void aForgetDeletesWhatIsStoredDropsWhatWaitsAndWhatArrivesLate() throws Exception {
        String index = "engram-memories-writer-order-" + run++;
        try (var h = harness(index)) {
            h.open();
            MemoryRecord turnA = MemoryRecord.of(RecordIds.turn(TENANT, "a", "t1"), TENANT, RecordType.TURN,
                    "we booked the lake cabin", Instant.ofEpochMilli(time("09:40"))).embedding(new float[] {1, 0, 0})
                    .session("a").user("ann").tokens(5).build();
            MemoryRecord turnB = MemoryRecord.of(RecordIds.turn(TENANT, "b", "t1"), TENANT, RecordType.TURN,
                    "the invoices are due friday", Instant.ofEpochMilli(time("09:41"))).embedding(new float[] {0, 1, 0})
                    .session("b").user("bob").tokens(5).build();
            h.processElement(new StreamRecord<>(StoreOp.upsert(turnA, null), time("09:40")));
            h.processElement(new StreamRecord<>(StoreOp.upsert(turnB, null), time("09:41")));
            feed(h, A1); // session a's summary waits for the watermark
            long requested = time("10:30");
            h.processElement(new StreamRecord<>(StoreOp.forget(new io.engram.jobs.ingest.ForgetEvent(TENANT, "f1",
                    io.engram.model.retrieval.ForgetScope.SESSION, "a", requested)), requested));
            feed(h, A2); // compaction's last summary of the session, read after the forget
            h.processWatermark(time("12:00"));

            assertThat(h.getSideOutput(StoreWriterOperator.FORGETS_DONE)).singleElement().satisfies(done -> {
                assertThat(done.getValue().forgetId()).isEqualTo("f1");
                assertThat(done.getValue().scope()).isEqualTo("session");
                assertThat(done.getValue().recordsRemoved()).isEqualTo(1); // turn a/t1; the summaries never landed
            });
            assertThat(forwarded(h)).noneMatch(line -> line.contains("a-sum"));
        }
        try (OpenSearchMemoryStore written = new OpenSearchMemoryStore(url, index, RetryPolicy.DEFAULT)) {
            written.refresh();
            assertThat(written.find(TENANT, java.util.Map.of(), Set.of(), 10, null, true))
                    .extracting(MemoryRecord::id).containsExactly(RecordIds.turn(TENANT, "b", "t1"));
        }
    }
}
