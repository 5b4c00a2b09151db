package io.engram.jobs.collapse;

import io.engram.jobs.store.StoreChange;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;

/**
 * A tenant's changes the watermark has not passed yet, in the detector's keyed state by the event time they were
 * written at, and the order in which the changes of one time are applied (docs/algorithms.md §D, "Cycles, in
 * event-time order").
 */
final class PendingChanges {

    /**
     * The order of a tenant's changes written at the same event time: by session (none first), then by the record
     * they touch; changes the same in both keep the order they arrived in, which is the order of the one upstream
     * task both came through.
     */
    static final Comparator<StoreChange> SAME_TIME_ORDER = Comparator
            .comparing(StoreChange::sessionId, Comparator.nullsFirst(Comparator.<String>naturalOrder()))
            .thenComparing(PendingChanges::recordOf);

    private final MapState<Long, List<StoreChange>> byTime;

    PendingChanges(RuntimeContext context) {
        byTime = context.getMapState(new MapStateDescriptor<>("pending-changes", LongSerializer.INSTANCE,
                new ListSerializer<>(StoreChange.SERIALIZER)));
    }

    void add(long writtenAt, StoreChange change) throws Exception {
        List<StoreChange> waiting = byTime.get(writtenAt);
        List<StoreChange> now = waiting == null ? new ArrayList<>() : new ArrayList<>(waiting);
        now.add(change);
        byTime.put(writtenAt, now);
    }

    /** Whether changes written at {@code writtenAt} wait. */
    boolean waitAt(long writtenAt) throws Exception {
        return byTime.contains(writtenAt);
    }

    /** The times changes wait at, earliest first. */
    List<Long> times() throws Exception {
        List<Long> times = new ArrayList<>();
        byTime.keys().forEach(times::add);
        times.sort(null);
        return times;
    }

    /** The changes written at {@code writtenAt}, in {@link #SAME_TIME_ORDER}, no longer waiting. */
    List<StoreChange> take(long writtenAt) throws Exception {
        List<StoreChange> due = byTime.get(writtenAt);
        if (due == null) {
            return List.of();
        }
        byTime.remove(writtenAt);
        List<StoreChange> ordered = new ArrayList<>(due);
        ordered.sort(SAME_TIME_ORDER);
        return ordered;
    }

    private static String recordOf(StoreChange change) {
        if (change instanceof StoreChange.Upsert u) {
            return u.record().id();
        }
        return change instanceof StoreChange.Delete d ? d.id() : "";
    }
}
