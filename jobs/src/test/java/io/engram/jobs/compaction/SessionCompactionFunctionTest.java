package io.engram.jobs.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.jobs.ingest.ForgetEvent;
import io.engram.model.compaction.SessionCompactor.SummaryRecord;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.retrieval.ForgetScope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** The compaction operator under Flink's keyed operator harness, with the real embedding model. */
class SessionCompactionFunctionTest {

    private static final long T0 = 1_767_000_000_000L;
    private static final String[] TOPICS = {"We hiked up the mountain and saw goats near the summit.",
            "My sister painted the lake at sunrise; the colours were amazing.",
            "The dog chewed my running shoes again this morning.",
            "I have a job interview on Thursday and I feel nervous.",
            "We baked a chocolate cake for grandma's birthday party."};

    private static List<TurnEvent> session(int n) {
        List<TurnEvent> turns = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            turns.add(new TurnEvent("acme", "s1", "u1", "t" + i, i, i % 2 == 0 ? "user" : "assistant",
                    TOPICS[i % TOPICS.length] + " (" + i + ")", T0 + 60_000L * i));
        }
        return turns;
    }

    private static KeyedBroadcastOperatorTestHarness<String, TurnEvent, ForgetEvent, CompactionResult> harness() throws Exception {
        SessionCompactionFunction function = new SessionCompactionFunction(
                () -> EmbeddingModel.ALL_MINILM_L6_V2.open(), new SessionCompactionFunction.Settings(
                        Duration.ofMinutes(5), Duration.ofHours(1), Duration.ofDays(30)));
        KeyedBroadcastOperatorTestHarness<String, TurnEvent, ForgetEvent, CompactionResult> harness =
                new KeyedBroadcastOperatorTestHarness<>(new SessionCompactionOperator(function),
                        TurnEvent::sessionKey, org.apache.flink.api.common.typeinfo.Types.STRING, 128, 1, 0);
        harness.open();
        return harness;
    }

    /** Feeds the turns in the given order, then moves the watermark past every turn's lateness. */
    private static List<CompactionResult> run(List<TurnEvent> arrivals, long finalWatermark) throws Exception {
        try (var harness = harness()) {
            for (TurnEvent t : arrivals) {
                harness.processElement(new StreamRecord<>(t, t.tsMillis()));
            }
            harness.watermark(finalWatermark);
            List<CompactionResult> results = new ArrayList<>();
            harness.extractOutputValues().forEach(results::add);
            return results;
        }
    }

    private static List<String> summaryIds(List<CompactionResult> results) {
        List<String> ids = new ArrayList<>();
        for (CompactionResult r : results) {
            for (SummaryRecord summary : r.summaries()) {
                ids.add(summary.id() + " " + summary.text().hashCode());
            }
        }
        return ids;
    }

    @Test
    void outOfOrderAndDuplicateTurnsGiveTheSameSummariesAsInOrder() throws Exception {
        List<TurnEvent> inOrder = session(40);
        long watermark = T0 + 60_000L * 40 + Duration.ofMinutes(10).toMillis(); // past the lateness, before idle
        List<CompactionResult> expected = run(inOrder, watermark);
        assertThat(summaryIds(expected)).hasSize(1);

        List<TurnEvent> shuffled = new ArrayList<>(inOrder);
        Collections.shuffle(shuffled, new Random(7));
        shuffled.addAll(inOrder.subList(0, 10)); // replays
        List<CompactionResult> actual = run(shuffled, watermark);
        assertThat(summaryIds(actual)).isEqualTo(summaryIds(expected));
        CompactionResult first = actual.get(0);
        assertThat(first.tenantId()).isEqualTo("acme");
        assertThat(first.sessionId()).isEqualTo("s1");
        assertThat(first.compactedTurnIds()).contains("t0", "t1");
    }

    @Test
    void theWindowsDependOnTheTurnsNotOnHowFarTheWatermarkMovesAtOnce() throws Exception {
        List<TurnEvent> turns = session(70);
        long lateness = Duration.ofMinutes(5).toMillis();
        long end = T0 + 60_000L * 70 + Duration.ofMinutes(10).toMillis(); // past the lateness, before idle
        List<StreamRecord<CompactionResult>> oneStep;
        try (var harness = harness()) {
            for (TurnEvent t : turns) {
                harness.processElement(new StreamRecord<>(t, t.tsMillis()));
            }
            harness.watermark(end); // a backlog: every turn final at once
            oneStep = results(harness);
        }
        List<StreamRecord<CompactionResult>> turnByTurn;
        try (var harness = harness()) {
            for (TurnEvent t : turns) { // live: each turn final before the next is read
                harness.processElement(new StreamRecord<>(t, t.tsMillis()));
                harness.watermark(t.tsMillis() + lateness);
            }
            harness.watermark(end);
            turnByTurn = results(harness);
        }
        List<StreamRecord<CompactionResult>> inBursts;
        try (var harness = harness()) {
            for (int i = 0; i < turns.size(); i++) { // a restart in the middle: two bursts of 33 and 37
                harness.processElement(new StreamRecord<>(turns.get(i), turns.get(i).tsMillis()));
                if (i == 32) {
                    harness.watermark(turns.get(i).tsMillis() + lateness);
                }
            }
            harness.watermark(end);
            inBursts = results(harness);
        }
        assertThat(summaryIds(oneStep.stream().map(StreamRecord::getValue).toList())).hasSize(3)
                .isEqualTo(summaryIds(turnByTurn.stream().map(StreamRecord::getValue).toList()))
                .isEqualTo(summaryIds(inBursts.stream().map(StreamRecord::getValue).toList()));
        // each compaction carries the time its last needed turn became final, whichever way it was reached
        List<Long> times = oneStep.stream().map(StreamRecord::getTimestamp).toList();
        assertThat(turnByTurn.stream().map(StreamRecord::getTimestamp).toList()).isEqualTo(times);
        assertThat(inBursts.stream().map(StreamRecord::getTimestamp).toList()).isEqualTo(times);
        assertThat(times).allSatisfy(t -> assertThat(t).isLessThan(end));
        // the rule fired as soon as k = 20 turns waited before the tail: one window of exactly k turns each time
        assertThat(oneStep).allSatisfy(r -> assertThat(r.getValue().compactedTurnIds()).hasSize(20));
    }

    /** The results with the event time each carries. */
    private static List<StreamRecord<CompactionResult>> results(
            KeyedBroadcastOperatorTestHarness<String, TurnEvent, ForgetEvent, CompactionResult> harness) {
        return harness.extractOutputStreamRecords().stream()
                .map(r -> new StreamRecord<CompactionResult>(r.getValue(), r.getTimestamp())).toList();
    }

    @Test
    void compactionNeverAnnouncesItselfIdle() throws Exception {
        try (var harness = harness()) {
            harness.getTwoInputOperator().processWatermarkStatus1(WatermarkStatus.IDLE);
            harness.getTwoInputOperator().processWatermarkStatus2(WatermarkStatus.IDLE);
            // with both inputs idle a two-input operator would announce itself idle downstream
            assertThat(harness.getOutput()).doesNotContain(WatermarkStatus.IDLE);
        }
    }

    @Test
    void compactedTurnsLeaveStateAndTheirReplaysAreDropped() throws Exception {
        try (var harness = harness()) {
            for (TurnEvent t : session(40)) {
                harness.processElement(new StreamRecord<>(t, t.tsMillis()));
            }
            assertThat(pendingTurns(harness, "acme/s1")).hasSize(40);
            harness.watermark(T0 + 60_000L * 40 + Duration.ofMinutes(10).toMillis());
            List<CompactionResult> results = new ArrayList<>(harness.extractOutputValues());
            List<String> compacted = results.stream().flatMap(r -> r.compactedTurnIds().stream()).toList();
            assertThat(compacted).hasSizeGreaterThanOrEqualTo(20);
            // the compacted turns left state: what remains is the rest, the tail among it
            List<String> left = pendingTurns(harness, "acme/s1");
            assertThat(left).hasSize(40 - compacted.size()).doesNotContainAnyElementsOf(compacted).contains("t39");

            harness.getOutput().clear();
            for (TurnEvent t : session(5)) { // replays of compacted turns
                harness.processElement(new StreamRecord<>(t, t.tsMillis()));
            }
            harness.watermark(T0 + 60_000L * 40 + Duration.ofMinutes(20).toMillis());
            assertThat(harness.extractOutputValues()).isEmpty();
        }
    }

    private static List<String> pendingTurns(
            KeyedBroadcastOperatorTestHarness<String, TurnEvent, ForgetEvent, CompactionResult> harness, String key)
            throws Exception {
        SessionCompactionOperator operator = (SessionCompactionOperator) harness.getOperator();
        operator.setCurrentKey(key);
        org.apache.flink.api.common.state.MapState<String, SessionCompactionFunction.PendingTurn> state = operator.getKeyedStateBackend()
                .getPartitionedState(org.apache.flink.runtime.state.VoidNamespace.INSTANCE,
                        org.apache.flink.runtime.state.VoidNamespaceSerializer.INSTANCE,
                        SessionCompactionFunction.pendingTurnsDescriptor());
        List<String> ids = new ArrayList<>();
        state.keys().forEach(ids::add);
        return ids;
    }

    @Test
    void aForgottenUserLeavesEverySessionOfTheirsAndTheirLateTurnsAreDropped() throws Exception {
        try (var harness = harness()) {
            for (int i = 0; i < 6; i++) {
                long ts = T0 + 60_000L * i;
                harness.processElement(new TurnEvent("acme", "s1", "ann", "a" + i, i, "user", TOPICS[i % TOPICS.length], ts), ts);
                harness.processElement(new TurnEvent("acme", "s2", "bob", "b" + i, i, "user", TOPICS[i % TOPICS.length], ts), ts);
                harness.processElement(new TurnEvent("other", "s1", "ann", "o" + i, i, "user", TOPICS[i % TOPICS.length], ts), ts);
            }
            long requested = T0 + 60_000L * 10;
            harness.processBroadcastElement(new ForgetEvent("acme", "f1", ForgetScope.USER, "ann", requested), requested);
            assertThat(pendingTurns(harness, "acme/s1")).isEmpty();
            assertThat(pendingTurns(harness, "acme/s2")).hasSize(6); // another user
            assertThat(pendingTurns(harness, "other/s1")).hasSize(6); // the same user id in another tenant

            // a turn of hers written before the forget but read after it is dropped; one written after is kept
            harness.processElement(new TurnEvent("acme", "s1", "ann", "late", 6, "user", TOPICS[1], requested - 1),
                    requested - 1);
            harness.processElement(new TurnEvent("acme", "s1", "ann", "new", 7, "user", TOPICS[2], requested + 1),
                    requested + 1);
            assertThat(pendingTurns(harness, "acme/s1")).containsExactly("new");

            // one turn of a session: that turn only
            harness.processBroadcastElement(new ForgetEvent("acme", "f2", ForgetScope.MEMORY, "acme/s2/b3",
                    requested + 2), requested + 2);
            assertThat(pendingTurns(harness, "acme/s2")).containsExactlyInAnyOrder("b0", "b1", "b2", "b4", "b5");
        }
    }

    private static List<String> liveSummaries(
            KeyedBroadcastOperatorTestHarness<String, TurnEvent, ForgetEvent, CompactionResult> harness, String key)
            throws Exception {
        List<String> ids = new ArrayList<>();
        listState(harness, key, SessionCompactionFunction.liveSummariesDescriptor()).get().forEach(s -> ids.add(s.id()));
        return ids;
    }

    @Test
    void aForgottenTenantLeavesEverySessionOfItsAndItsLateTurnsAreDroppedAnotherTenantsStay() throws Exception {
        try (var harness = harness()) {
            for (String tenant : List.of("acme", "other")) { // a compacted session each: pending tail, live summary
                for (TurnEvent t : session(40)) {
                    TurnEvent of = new TurnEvent(tenant, t.sessionId(), t.userId(), t.turnId(), t.seq(), t.role(), t.text(),
                            t.tsMillis());
                    harness.processElement(new StreamRecord<>(of, of.tsMillis()));
                }
            }
            for (int i = 0; i < 3; i++) { // and a session of another user, not compacted yet
                long ts = T0 + 60_000L * i;
                harness.processElement(new TurnEvent("acme", "s2", "bob", "b" + i, i, "user", TOPICS[i], ts), ts);
            }
            harness.watermark(T0 + 60_000L * 40 + Duration.ofMinutes(10).toMillis());
            assertThat(liveSummaries(harness, "acme/s1")).hasSize(1);
            List<String> otherPending = pendingTurns(harness, "other/s1");
            List<String> otherSummaries = liveSummaries(harness, "other/s1");
            assertThat(otherPending).isNotEmpty().isEqualTo(pendingTurns(harness, "acme/s1"));
            assertThat(otherSummaries).hasSize(1);

            long requested = T0 + 60_000L * 60;
            harness.processBroadcastElement(new ForgetEvent("acme", "f1", ForgetScope.TENANT, "acme", requested),
                    requested);
            for (String session : List.of("acme/s1", "acme/s2")) {
                assertThat(pendingTurns(harness, session)).as(session).isEmpty();
                assertThat(liveSummaries(harness, session)).as(session).isEmpty();
            }
            assertThat(pendingTurns(harness, "other/s1")).isEqualTo(otherPending);
            assertThat(liveSummaries(harness, "other/s1")).isEqualTo(otherSummaries);

            // a turn of the tenant said before the forget but read after it is dropped; one said after is kept
            harness.processElement(new TurnEvent("acme", "s2", "bob", "late", 3, "user", TOPICS[3], requested - 1),
                    requested - 1);
            harness.processElement(new TurnEvent("acme", "s2", "bob", "new", 4, "user", TOPICS[4], requested + 1),
                    requested + 1);
            assertThat(pendingTurns(harness, "acme/s2")).containsExactly("new");

            harness.getOutput().clear();
            harness.watermark(requested + Duration.ofHours(2).toMillis()); // every session's idle timer fires
            assertThat(harness.extractOutputValues()).filteredOn(r -> r.tenantId().equals("acme"))
                    .as("nothing of what the tenant said before its deletion is summarised")
                    .allSatisfy(r -> assertThat(r.compactedTurnIds()).isSubsetOf("new"));
        }
    }

    @Test
    void anIdleSessionIsCompactedBelowKByItsInactivityTimer() throws Exception {
        try (var harness = harness()) {
            for (TurnEvent t : session(22)) { // tail ~10, ~12 compactable < k = 20
                harness.processElement(new StreamRecord<>(t, t.tsMillis()));
            }
            harness.watermark(T0 + 60_000L * 22 + Duration.ofMinutes(10).toMillis());
            assertThat(harness.extractOutputValues()).isEmpty();
            // one hour of event time without a turn: the idle timer compacts what waits
            harness.watermark(T0 + 60_000L * 21 + Duration.ofHours(1).toMillis());
            List<CompactionResult> results = new ArrayList<>(harness.extractOutputValues());
            assertThat(results).hasSize(1);
            assertThat(results.get(0).summaries()).singleElement()
                    .satisfies(summary -> assertThat(summary.sourceRefs()).startsWith("t0", "t1"));
        }
    }

    @Test
    void liveSummariesInTheJsonStateOfAnEarlierVersionAreReadOnceAndKeptTyped() throws Exception {
        // what a savepoint taken before typed state holds for a session: its live summaries as JSON text
        StringBuilder vector = new StringBuilder();
        for (int i = 0; i < 384; i++) {
            vector.append(i == 0 ? "" : ",").append(i == 0 ? "1.0" : "0.0");
        }
        String before = "{\"id\":\"sum-earlier\",\"text\":\"We planned the trip to the lake.\",\"generation\":1,"
                + "\"q_align\":0.8,\"q_cover\":0.7,\"confidence\":0.75,\"decay_rate\":0.25,"
                + "\"from\":\"2025-12-01T00:00:00Z\",\"to\":\"2025-12-01T00:20:00Z\",\"source_tokens\":300,"
                + "\"summary_tokens\":40,\"source_refs\":[\"e0\",\"e1\"],\"embedding\":[" + vector + "]}";
        try (var harness = harness()) {
            listState(harness, SessionCompactionFunction.summariesAsJsonDescriptor()).add(before);
            for (TurnEvent t : session(40)) {
                harness.processElement(new StreamRecord<>(t, t.tsMillis()));
            }
            harness.watermark(T0 + 60_000L * 40 + Duration.ofMinutes(10).toMillis());
            List<CompactionResult> results = new ArrayList<>(harness.extractOutputValues());
            assertThat(results).hasSize(1);

            List<SummaryRecord> live = new ArrayList<>();
            listState(harness, SessionCompactionFunction.liveSummariesDescriptor()).get().forEach(live::add);
            assertThat(live).extracting(SummaryRecord::id)
                    .containsExactly("sum-earlier", results.get(0).summaries().get(0).id());
            SummaryRecord earlier = live.get(0);
            assertThat(earlier.text()).isEqualTo("We planned the trip to the lake.");
            assertThat(earlier.sourceRefs()).containsExactly("e0", "e1");
            assertThat(earlier.score().confidence()).isEqualTo(0.75);
            assertThat(earlier.to()).isEqualTo(java.time.Instant.parse("2025-12-01T00:20:00Z"));
            assertThat(earlier.embedding()).hasSize(384).startsWith(1.0f, 0.0f);
            assertThat(listState(harness, SessionCompactionFunction.summariesAsJsonDescriptor()).get()).isEmpty();
        }
    }

    private static <T> org.apache.flink.api.common.state.ListState<T> listState(
            KeyedBroadcastOperatorTestHarness<String, TurnEvent, ForgetEvent, CompactionResult> harness,
            org.apache.flink.api.common.state.ListStateDescriptor<T> descriptor) throws Exception {
        return listState(harness, "acme/s1", descriptor);
    }

    private static <T> org.apache.flink.api.common.state.ListState<T> listState(
            KeyedBroadcastOperatorTestHarness<String, TurnEvent, ForgetEvent, CompactionResult> harness, String key,
            org.apache.flink.api.common.state.ListStateDescriptor<T> descriptor) throws Exception {
        SessionCompactionOperator operator = (SessionCompactionOperator) harness.getOperator();
        operator.setCurrentKey(key);
        return operator.getKeyedStateBackend().getPartitionedState(org.apache.flink.runtime.state.VoidNamespace.INSTANCE,
                org.apache.flink.runtime.state.VoidNamespaceSerializer.INSTANCE, descriptor);
    }
}
