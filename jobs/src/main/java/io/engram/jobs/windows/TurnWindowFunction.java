package io.engram.jobs.windows;

import io.engram.jobs.PipelineConfig;
import io.engram.jobs.compaction.TurnEvent;
import io.engram.jobs.ingest.ForgetEvent;
import io.engram.jobs.ingest.RecentForgets;
import io.engram.jobs.store.StoreChange;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.model.retrieval.TurnWindows;
import io.engram.store.RecordIds;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Windows of consecutive turns of one {@code (tenant, session)} ({@link TurnWindows}), keyed by
 * {@link TurnEvent#sessionKey()}: keyed state holds the session's last {@code size} turns in seq order and how many
 * arrived since its last window; every {@code stride} turns a window of the kept turns goes to the store as a
 * {@link RecordType#WINDOW} record (its session, user, and its turns' ids as {@code source_refs}, so that a forget
 * of a turn, its session or its user deletes it with the turns), timed as its last turn, its vector the mean of its
 * turns' ({@link WindowVectors}). A turn id already kept is
 * a replay and is dropped. With windows off it keeps nothing and makes nothing.
 *
 * <p>Forgets arrive broadcast, as at compaction: a forgotten turn, session, user or tenant leaves the kept turns,
 * and the forget is kept for {@code stateTtl} so a covered turn that arrives after it never enters a window.
 */
public final class TurnWindowFunction extends KeyedBroadcastProcessFunction<String, TurnEvent, ForgetEvent, StoreChange> {

    private static final long serialVersionUID = 1L;

    /** The forgets of the last {@code stateTtl}, by forget id. */
    public static final MapStateDescriptor<String, ForgetEvent> FORGETS = new MapStateDescriptor<>("window-forgets",
            Types.STRING, TypeInformation.of(ForgetEvent.class));

    /** The windows to make, where their vectors come from, and how long a session's kept turns and the forgets are kept. */
    public record Settings(TurnWindows windows, WindowVectors vectors, Duration stateTtl) implements Serializable {

        /** The pipeline's settings. */
        public static Settings of(PipelineConfig config) {
            return new Settings(config.turnWindows(), config.windowVectors(), config.stateTtl());
        }
    }

    private final TurnWindows windows;
    private final WindowVectors vectors;
    private final Duration stateTtl;
    private transient ListStateDescriptor<TurnEvent> keptDescriptor;
    private transient ListState<TurnEvent> kept;
    private transient ValueStateDescriptor<Integer> sinceDescriptor;
    private transient ValueState<Integer> sinceLast;

    public TurnWindowFunction(Settings settings) {
        this.windows = settings.windows();
        this.vectors = settings.vectors();
        this.stateTtl = settings.stateTtl();
    }

    @Override
    public void open(OpenContext context) {
        StateTtlConfig ttl = StateTtlConfig.newBuilder(stateTtl).build();
        keptDescriptor = keptTurnsDescriptor();
        keptDescriptor.enableTimeToLive(ttl);
        kept = getRuntimeContext().getListState(keptDescriptor);
        sinceDescriptor = new ValueStateDescriptor<>("turns-since-window", Types.INT);
        sinceDescriptor.enableTimeToLive(ttl);
        sinceLast = getRuntimeContext().getState(sinceDescriptor);
    }

    /** The turns a session keeps for its next window (also read by the operator test). */
    static ListStateDescriptor<TurnEvent> keptTurnsDescriptor() {
        return new ListStateDescriptor<>("window-turns", TypeInformation.of(TurnEvent.class));
    }

    @Override
    public void processElement(TurnEvent turn, ReadOnlyContext ctx, Collector<StoreChange> out) throws Exception {
        if (!windows.on()) {
            return;
        }
        List<TurnEvent> turns = new ArrayList<>();
        for (TurnEvent t : kept.get()) {
            if (t.turnId().equals(turn.turnId())) {
                return; // a replay
            }
            turns.add(t);
        }
        String recordId = RecordIds.turn(turn.tenantId(), turn.sessionId(), turn.turnId());
        for (Map.Entry<String, ForgetEvent> f : ctx.getBroadcastState(FORGETS).immutableEntries()) {
            if (f.getValue().covers(turn.tenantId(), recordId, turn.sessionId(), turn.userId(), List.of(), turn.tsMillis())) {
                return; // forgotten before it arrived
            }
        }
        turns.add(turn);
        turns.sort(Comparator.comparingLong(TurnEvent::seq).thenComparing(TurnEvent::turnId));
        turns = windows.kept(turns);
        kept.update(turns);
        int since = (sinceLast.value() == null ? 0 : sinceLast.value()) + 1;
        if (windows.due(since)) {
            out.collect(window(turns, vectors));
            since = 0;
        }
        sinceLast.update(since);
    }

    /**
     * The window of the kept turns, as a store record; its vector the mean of its turns' (their texts, exactly as
     * their records are embedded) unless the model embeds its own text.
     */
    public static StoreChange window(List<TurnEvent> turns, WindowVectors vectors) {
        TurnEvent first = turns.get(0);
        TurnEvent last = turns.get(turns.size() - 1);
        String user = turns.stream().map(TurnEvent::userId).filter(u -> u != null).findFirst().orElse(null);
        return new StoreChange.Upsert(MemoryRecord.of(TurnWindows.id(first.tenantId(), first.sessionId(), first.turnId(),
                        last.turnId()), first.tenantId(), RecordType.WINDOW,
                TurnWindows.text(turns.stream().map(TurnEvent::text).toList()),
                Instant.ofEpochMilli(turns.stream().mapToLong(TurnEvent::tsMillis).max().orElseThrow()))
                .session(first.sessionId()).user(user).provenance(turns.stream().map(TurnEvent::turnId).toList(), 0)
                .position((int) Math.min(Integer.MAX_VALUE, first.seq())).build(), null,
                vectors == WindowVectors.MODEL ? List.of() : turns.stream().map(TurnEvent::text).toList());
    }

    /**
     * Drops what the sessions of this subtask keep of the forgotten scope, and remembers the forget. A deleted
     * tenant's sessions also lose their count toward the next window: nothing of what they held is left.
     */
    @Override
    public void processBroadcastElement(ForgetEvent forget, Context ctx, Collector<StoreChange> out) throws Exception {
        RecentForgets.remember(ctx.getBroadcastState(FORGETS), forget, stateTtl);
        ctx.applyToKeyedState(keptDescriptor, (key, state) -> state.update(remaining(state.get(), forget)));
        if (forget.scope() == ForgetScope.TENANT) {
            ctx.applyToKeyedState(sinceDescriptor, (key, state) -> {
                if (key.split("/", 2)[0].equals(forget.tenantId())) {
                    state.clear();
                }
            });
        }
    }

    /**
     * The kept turns a forget leaves: none of a session of a forgotten user or tenant (whenever its turns were
     * said, as the store deletes them all), else those it does not cover.
     */
    static List<TurnEvent> remaining(Iterable<TurnEvent> turns, ForgetEvent forget) {
        List<TurnEvent> all = new ArrayList<>();
        turns.forEach(all::add);
        boolean wholeSession = all.stream().anyMatch(t -> t.tenantId().equals(forget.tenantId())
                && (forget.scope() == ForgetScope.TENANT
                || (forget.scope() == ForgetScope.USER && forget.target().equals(t.userId()))));
        if (wholeSession) {
            return List.of();
        }
        return all.stream().filter(t -> !forget.covers(t.tenantId(), RecordIds.turn(t.tenantId(), t.sessionId(), t.turnId()),
                t.sessionId(), t.userId(), List.of(), t.tsMillis())).toList();
    }
}
