package io.engram.jobs.compaction;

import io.engram.jobs.PipelineConfig;
import io.engram.jobs.embed.EmbedderFactory;
import io.engram.jobs.ingest.ForgetEvent;
import io.engram.jobs.ingest.RecentForgets;
import io.engram.model.compaction.ExtractiveSummarizer;
import io.engram.model.compaction.SessionCompactor;
import io.engram.model.compaction.SessionCompactor.SummaryRecord;
import io.engram.model.compaction.SessionCompactor.Turn;
import io.engram.model.embed.Embedder;
import io.engram.model.retrieval.ForgetScope;
import io.engram.store.RecordIds;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Compaction of one {@code (tenant, session)} (keyed by {@link TurnEvent#sessionKey()}). Keyed state holds
 * the session's uncompacted turns, its live summaries and the highest compacted seq. A turn becomes final when
 * the watermark passes its time plus the allowed lateness (an event-time timer); only final turns are
 * compacted, in seq order, so the same turns in any arrival order within the lateness give the same summaries.
 * Each timer compacts what is final at its own time, not at the watermark's: when the watermark jumps past
 * many turns at once (a backlog, a restart) the rule is still applied turn by turn, so the summaries and the
 * time they carry depend on the turns only, not on how far the watermark moved in one step.
 * A turn id seen before, or a seq at or below what was compacted, is a replay and is dropped. After
 * {@code inactivityGap} of event time without a turn the session is compacted as idle. Compacted turns leave
 * state; every state has a TTL so abandoned sessions go too. The algorithm is {@link SessionCompactor}.
 *
 * <p>Forgets arrive broadcast: a forget of a session, a user, the tenant or one turn drops what every session of
 * this subtask holds of it (pending turns, live summaries) and is kept for {@code stateTtl}, so a turn it covers
 * that arrives later (read late from another partition) is dropped on arrival. The writer deletes what is already
 * stored.
 */
public final class SessionCompactionFunction
        extends KeyedBroadcastProcessFunction<String, TurnEvent, ForgetEvent, CompactionResult> {

    private static final long serialVersionUID = 1L;

    /**
     * How late a turn may be before its session's compaction runs without it, how long a session stays quiet before
     * it is compacted whole, and how long state (pending turns, summaries, forgets) is kept.
     */
    public record Settings(Duration allowedLateness, Duration inactivityGap, Duration stateTtl) implements Serializable {

        /** The pipeline's settings. */
        public static Settings of(PipelineConfig config) {
            return new Settings(config.allowedLateness(), config.sessionInactivity(), config.stateTtl());
        }
    }

    private final EmbedderFactory embedderFactory;
    private final long allowedLatenessMillis;
    private final long inactivityGapMillis;
    private final Duration stateTtl;

    private transient Embedder embedder;
    private transient SessionCompactor compactor;
    private transient MapState<String, PendingTurn> pending;
    private transient ListState<SummaryRecord> summaries;
    private transient ListState<String> summariesAsJson;
    private transient ValueState<Long> maxCompactedSeq;
    private transient ValueState<Long> idleTimer;
    private transient ValueState<String> sessionUser;
    private transient MapStateDescriptor<String, PendingTurn> pendingDescriptor;
    private transient ListStateDescriptor<SummaryRecord> summariesDescriptor;
    private transient ValueStateDescriptor<String> sessionUserDescriptor;

    /** The forgets of the last {@code stateTtl}, by forget id: broadcast state, the same on every subtask. */
    public static final MapStateDescriptor<String, ForgetEvent> FORGETS = new MapStateDescriptor<>("forgets",
            Types.STRING, TypeInformation.of(ForgetEvent.class));

    public SessionCompactionFunction(EmbedderFactory embedderFactory, Settings settings) {
        this.embedderFactory = embedderFactory;
        this.allowedLatenessMillis = settings.allowedLateness().toMillis();
        this.inactivityGapMillis = settings.inactivityGap().toMillis();
        this.stateTtl = settings.stateTtl();
    }

    @Override
    public void open(OpenContext context) {
        embedder = embedderFactory.get();
        compactor = new SessionCompactor(new ExtractiveSummarizer(embedder, ExtractiveSummarizer.Options.TURNS),
                SessionCompactor.Options.DEFAULT);
        StateTtlConfig ttl = StateTtlConfig.newBuilder(stateTtl).build();
        pendingDescriptor = pendingTurnsDescriptor();
        pendingDescriptor.enableTimeToLive(ttl);
        summariesDescriptor = liveSummariesDescriptor();
        summariesDescriptor.enableTimeToLive(ttl);
        ListStateDescriptor<String> summariesAsJsonDescriptor = summariesAsJsonDescriptor();
        summariesAsJsonDescriptor.enableTimeToLive(ttl);
        ValueStateDescriptor<Long> compactedDescriptor = new ValueStateDescriptor<>("max-compacted-seq", Types.LONG);
        compactedDescriptor.enableTimeToLive(ttl);
        pending = getRuntimeContext().getMapState(pendingDescriptor);
        summaries = getRuntimeContext().getListState(summariesDescriptor);
        summariesAsJson = getRuntimeContext().getListState(summariesAsJsonDescriptor);
        maxCompactedSeq = getRuntimeContext().getState(compactedDescriptor);
        idleTimer = getRuntimeContext().getState(new ValueStateDescriptor<>("idle-timer", Types.LONG));
        sessionUserDescriptor = new ValueStateDescriptor<>("session-user", Types.STRING);
        sessionUserDescriptor.enableTimeToLive(ttl);
        sessionUser = getRuntimeContext().getState(sessionUserDescriptor);
    }

    /** An uncompacted turn with its token count, counted once on arrival rather than at every timer. */
    public record PendingTurn(TurnEvent turn, int tokens) {
    }

    /** A session's live summaries, the participants of its next merges. */
    static ListStateDescriptor<SummaryRecord> liveSummariesDescriptor() {
        return new ListStateDescriptor<>("live-summaries", SummaryRecordSerializer.INSTANCE);
    }

    /**
     * The live summaries as state written before summaries were typed: JSON text under the name "summaries".
     * A savepoint of that time restores into it; each session's are read once, at its next compaction, and
     * rewritten typed ({@link LegacySummaryJson}).
     */
    static ListStateDescriptor<String> summariesAsJsonDescriptor() {
        return new ListStateDescriptor<>("summaries", Types.STRING);
    }

    /** The uncompacted turns of a session, by turn id (also read by the operator test). */
    static MapStateDescriptor<String, PendingTurn> pendingTurnsDescriptor() {
        return new MapStateDescriptor<>("pending-turns", Types.STRING, TypeInformation.of(PendingTurn.class));
    }

    @Override
    public void processElement(TurnEvent turn, ReadOnlyContext ctx, Collector<CompactionResult> out) throws Exception {
        Long compacted = maxCompactedSeq.value();
        if (pending.contains(turn.turnId()) || (compacted != null && turn.seq() <= compacted)) {
            return; // a replay or a duplicate
        }
        String recordId = RecordIds.turn(turn.tenantId(), turn.sessionId(), turn.turnId());
        for (Map.Entry<String, ForgetEvent> f : ctx.getBroadcastState(FORGETS).immutableEntries()) {
            if (f.getValue().covers(turn.tenantId(), recordId, turn.sessionId(), turn.userId(), List.of(), turn.tsMillis())) {
                return; // forgotten before it arrived
            }
        }
        if (turn.userId() != null) {
            sessionUser.update(turn.userId());
        }
        pending.put(turn.turnId(), new PendingTurn(turn, embedder.tokenCounter().count(turn.text())));
        ctx.timerService().registerEventTimeTimer(turn.tsMillis() + allowedLatenessMillis);
        Long previousIdle = idleTimer.value();
        long idleAt = turn.tsMillis() + inactivityGapMillis;
        if (previousIdle == null || idleAt > previousIdle) {
            if (previousIdle != null) {
                ctx.timerService().deleteEventTimeTimer(previousIdle);
            }
            ctx.timerService().registerEventTimeTimer(idleAt);
            idleTimer.update(idleAt);
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<CompactionResult> out) throws Exception {
        boolean idle = idleTimer.value() != null && timestamp == idleTimer.value();
        if (idle) {
            idleTimer.clear();
        }
        long finalUpTo = timestamp - allowedLatenessMillis;
        List<Turn> ready = new ArrayList<>();
        for (PendingTurn p : pending.values()) {
            TurnEvent t = p.turn();
            if (idle || t.tsMillis() <= finalUpTo) {
                ready.add(new Turn(t.turnId(), t.seq(), t.role(), t.text(), Instant.ofEpochMilli(t.tsMillis()), p.tokens()));
            }
        }
        if (ready.isEmpty()) {
            return;
        }
        ready.sort(Comparator.comparingLong(Turn::seq).thenComparing(Turn::turnId));
        List<SummaryRecord> live = new ArrayList<>();
        summaries.get().forEach(live::add);
        for (String json : summariesAsJson.get()) {
            live.add(LegacySummaryJson.decode(json));
        }
        String[] key = ctx.getCurrentKey().split("/", 2);
        SessionCompactor.Outcome outcome = compactor.compact(key[0], key[1], ready, live, idle);
        if (outcome.summaries().isEmpty() && outcome.guardRefusals() == 0 && outcome.declinedClusters() == 0) {
            return;
        }
        long highest = maxCompactedSeq.value() == null ? Long.MIN_VALUE : maxCompactedSeq.value();
        Set<String> compactedIds = new HashSet<>(outcome.compactedTurnIds());
        for (Turn t : ready) {
            if (compactedIds.contains(t.turnId())) {
                pending.remove(t.turnId());
                highest = Math.max(highest, t.seq());
            }
        }
        if (highest != Long.MIN_VALUE) {
            maxCompactedSeq.update(highest);
        }
        Set<String> retired = new HashSet<>(outcome.retiredSummaryIds());
        List<SummaryRecord> kept = new ArrayList<>();
        for (SummaryRecord s : live) {
            if (!retired.contains(s.id())) {
                kept.add(s);
            }
        }
        kept.addAll(outcome.summaries());
        summaries.update(kept);
        summariesAsJson.clear();
        out.collect(new CompactionResult(key[0], key[1], sessionUser.value(), outcome.summaries(), outcome.compactedTurnIds(),
                outcome.retiredSummaryIds(), outcome.declinedClusters(), outcome.guardRefusals(),
                outcome.floorViolations()));
    }

    /**
     * Drops what the sessions of this subtask hold of the forgotten scope, and remembers the forget for turns that
     * arrive after it. Every session with state has pending turns, live summaries or a recorded user; the backend
     * sets each key as current while {@code applyToKeyedState} visits it.
     */
    @Override
    public void processBroadcastElement(ForgetEvent forget, Context ctx, Collector<CompactionResult> out)
            throws Exception {
        RecentForgets.remember(ctx.getBroadcastState(FORGETS), forget, stateTtl);
        ctx.applyToKeyedState(pendingDescriptor, (key, state) -> forgetIn(key, forget));
        ctx.applyToKeyedState(summariesDescriptor, (key, state) -> forgetIn(key, forget));
        ctx.applyToKeyedState(sessionUserDescriptor, (key, state) -> forgetIn(key, forget));
    }

    /** Applies a forget to the session {@code key} (the current key). */
    private void forgetIn(String key, ForgetEvent forget) throws Exception {
        String[] tenantAndSession = key.split("/", 2);
        if (!tenantAndSession[0].equals(forget.tenantId())) {
            return;
        }
        boolean wholeSession = switch (forget.scope()) {
            case SESSION -> tenantAndSession[1].equals(forget.target());
            case USER -> forget.target().equals(sessionUser.value()) || spokeIn(forget.target());
            case TENANT -> true; // whenever its turns were said: the store deletes them all
            case MEMORY -> false;
        };
        if (wholeSession) {
            pending.clear();
            summaries.clear();
            summariesAsJson.clear();
            sessionUser.clear();
            return; // maxCompactedSeq stays: a replayed old turn is still recognised as one
        }
        Optional<String> forgottenTurn = forget.scope() == ForgetScope.MEMORY
                ? RecordIds.turnIdOf(tenantAndSession[0], tenantAndSession[1], forget.target()) : Optional.empty();
        if (forgottenTurn.isPresent()) {
            String turnId = forgottenTurn.get();
            pending.remove(turnId);
            List<SummaryRecord> kept = new ArrayList<>();
            for (SummaryRecord s : summaries.get()) {
                if (!s.sourceRefs().contains(turnId)) {
                    kept.add(s);
                }
            }
            summaries.update(kept);
        }
    }

    /** Whether a pending turn of the current session is the user's (a session begun before users were recorded). */
    private boolean spokeIn(String userId) throws Exception {
        for (PendingTurn p : pending.values()) {
            if (userId.equals(p.turn().userId())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        if (embedder != null) {
            embedder.close();
        }
    }
}
