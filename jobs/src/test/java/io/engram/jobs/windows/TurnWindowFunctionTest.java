package io.engram.jobs.windows;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.jobs.compaction.TurnEvent;
import io.engram.jobs.ingest.ForgetEvent;
import io.engram.jobs.ingest.Payloads;
import io.engram.jobs.store.StoreChange;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.model.retrieval.TurnWindows;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.co.CoBroadcastWithKeyedOperator;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** The window operator under Flink's keyed broadcast harness. */
class TurnWindowFunctionTest {

    private static final long T0 = 1_767_000_000_000L;

    private static KeyedBroadcastOperatorTestHarness<String, TurnEvent, ForgetEvent, StoreChange> harness(TurnWindows windows)
            throws Exception {
        var harness = new KeyedBroadcastOperatorTestHarness<>(new CoBroadcastWithKeyedOperator<>(
                new TurnWindowFunction(new TurnWindowFunction.Settings(windows, WindowVectors.TURNS, Duration.ofDays(30))), List.of(TurnWindowFunction.FORGETS)),
                TurnEvent::sessionKey, Types.STRING, 128, 1, 0);
        harness.open();
        return harness;
    }

    private static TurnEvent turn(String session, String user, int seq) {
        return new TurnEvent("acme", session, user, "t" + seq, seq, "user", "said " + seq, T0 + 60_000L * seq);
    }

    private static List<MemoryRecord> windows(KeyedBroadcastOperatorTestHarness<String, TurnEvent, ForgetEvent, StoreChange> h) {
        return h.extractOutputValues().stream().map(c -> ((StoreChange.Upsert) c).record()).toList();
    }

    @Test
    void everyStrideTurnsAWindowOfTheLastSizeTurnsInSeqOrderReplaysDropped() throws Exception {
        try (var h = harness(new TurnWindows(4, 2))) {
            for (int seq : new int[] {1, 0, 2, 3, 3, 4, 5}) { // 3 twice: a replay
                TurnEvent t = turn("s1", "ann", seq);
                h.processElement(t, t.tsMillis());
            }
            List<MemoryRecord> made = windows(h);
            assertThat(made).extracting(MemoryRecord::sourceRefs).containsExactly(
                    List.of("t0", "t1"), List.of("t0", "t1", "t2", "t3"), List.of("t2", "t3", "t4", "t5"));
            MemoryRecord last = made.get(2);
            assertThat(last.id()).isEqualTo(TurnWindows.id("acme", "s1", "t2", "t5"));
            assertThat(last.type()).isEqualTo(RecordType.WINDOW);
            assertThat(last.text()).isEqualTo("said 2\nsaid 3\nsaid 4\nsaid 5");
            assertThat(last.sessionId()).isEqualTo("s1");
            assertThat(last.userId()).isEqualTo("ann");
            assertThat(last.position()).isEqualTo(2);
            assertThat(last.ts().toEpochMilli()).isEqualTo(T0 + 60_000L * 5);
        }
    }

    @Test
    void aWindowsVectorIsAskedOfItsTurnsTextsAsTheirRecordsHoldThemUnlessTheModelEmbedsItsText() {
        List<TurnEvent> turns = List.of(turn("s1", "ann", 0), turn("s1", "ann", 1));
        StoreChange.Upsert ofTurns = (StoreChange.Upsert) TurnWindowFunction.window(turns, WindowVectors.TURNS);
        assertThat(ofTurns.vectorOf()).containsExactlyElementsOf(
                turns.stream().map(t -> ((StoreChange.Upsert) Payloads.turnRecord(t)).record().text()).toList());
        assertThat(ofTurns.record().text()).isEqualTo("said 0\nsaid 1");
        assertThat(((StoreChange.Upsert) TurnWindowFunction.window(turns, WindowVectors.MODEL)).vectorOf()).isEmpty();
    }

    @Test
    void windowsOffMakeNothing() throws Exception {
        try (var h = harness(TurnWindows.OFF)) {
            for (int seq = 0; seq < 10; seq++) {
                h.processElement(turn("s1", "ann", seq), T0 + 60_000L * seq);
            }
            assertThat(h.extractOutputValues()).isEmpty();
        }
    }

    @Test
    void aForgottenTurnSessionOrUserNeverEntersALaterWindow() throws Exception {
        try (var h = harness(new TurnWindows(3, 3))) {
            for (int seq = 0; seq < 2; seq++) {
                h.processElement(turn("s1", "ann", seq), T0 + 60_000L * seq);
                h.processElement(turn("s2", "bob", seq), T0 + 60_000L * seq);
                h.processElement(turn("s3", "cy", seq), T0 + 60_000L * seq);
            }
            long at = T0 + 60_000L * 10;
            h.processBroadcastElement(new ForgetEvent("acme", "f1", ForgetScope.MEMORY, "acme/s1/t0", at), at);
            h.processBroadcastElement(new ForgetEvent("acme", "f2", ForgetScope.SESSION, "s2", at), at);
            h.processBroadcastElement(new ForgetEvent("acme", "f3", ForgetScope.USER, "cy", at), at);
            // a turn of s2 written before the forget but read after it is dropped too
            h.processElement(turn("s2", "bob", 2), T0 + 60_000L * 2);
            for (int seq = 2; seq < 5; seq++) {
                TurnEvent later = new TurnEvent("acme", "s1", "ann", "t" + seq, seq, "user", "said " + seq, at + seq);
                h.processElement(later, later.tsMillis());
                TurnEvent cy = new TurnEvent("acme", "s3", "cy", "t" + seq, seq, "user", "said " + seq, at + seq);
                h.processElement(cy, cy.tsMillis());
            }
            assertThat(windows(h)).extracting(MemoryRecord::sessionId, MemoryRecord::sourceRefs).containsExactly(
                    org.assertj.core.groups.Tuple.tuple("s1", List.of("t1", "t2")), // t0 forgotten
                    org.assertj.core.groups.Tuple.tuple("s3", List.of("t2"))); // cy's turns after the forget only
        }
    }

    private static List<String> keptTurns(KeyedBroadcastOperatorTestHarness<String, TurnEvent, ForgetEvent, StoreChange> h,
                                          String key) throws Exception {
        var operator = (CoBroadcastWithKeyedOperator<?, ?, ?, ?>) h.getOperator();
        operator.setCurrentKey(key);
        List<String> ids = new java.util.ArrayList<>();
        operator.getKeyedStateBackend().getPartitionedState(org.apache.flink.runtime.state.VoidNamespace.INSTANCE,
                org.apache.flink.runtime.state.VoidNamespaceSerializer.INSTANCE, TurnWindowFunction.keptTurnsDescriptor())
                .get().forEach(t -> ids.add(t.tenantId() + "/" + t.sessionId() + "/" + t.turnId()));
        return ids;
    }

    @Test
    void aForgottenTenantsSessionsStartAgainFromNothingAndAnotherTenantsStay() throws Exception {
        try (var h = harness(new TurnWindows(3, 3))) {
            long at = T0 + 60_000L * 10;
            for (int seq = 0; seq < 2; seq++) {
                for (TurnEvent t : List.of(turn("s1", "ann", seq),
                        new TurnEvent("other", "s1", "ann", "t" + seq, seq, "user", "said " + seq, T0 + 60_000L * seq))) {
                    h.processElement(t, t.tsMillis());
                }
            }
            h.processElement(turn("s2", "bob", 0), T0);
            // a turn said after the forget but read before it: the store deletes it with the tenant, so it goes too
            h.processElement(new TurnEvent("acme", "s2", "bob", "t1", 1, "user", "said 1", at + 1), at + 1);
            h.processBroadcastElement(new ForgetEvent("acme", "f1", ForgetScope.TENANT, "acme", at), at);
            assertThat(keptTurns(h, "acme/s1")).isEmpty();
            assertThat(keptTurns(h, "acme/s2")).isEmpty();
            assertThat(keptTurns(h, "other/s1")).containsExactly("other/s1/t0", "other/s1/t1");

            h.processElement(turn("s1", "ann", 2), T0 + 60_000L * 2); // said before the forget, read after it
            for (int seq = 3; seq < 6; seq++) { // said after it: a new start, a window after three of them
                h.processElement(new TurnEvent("acme", "s1", "ann", "t" + seq, seq, "user", "said " + seq, at + seq),
                        at + seq);
            }
            h.processElement(new TurnEvent("other", "s1", "ann", "t2", 2, "user", "said 2", T0 + 60_000L * 2),
                    T0 + 60_000L * 2);
            assertThat(windows(h)).extracting(MemoryRecord::tenantId, MemoryRecord::sessionId, MemoryRecord::sourceRefs)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("acme", "s1", List.of("t3", "t4", "t5")),
                            org.assertj.core.groups.Tuple.tuple("other", "s1", List.of("t0", "t1", "t2")));
        }
    }
}
