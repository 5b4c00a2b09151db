package io.engram.jobs.store;

import io.engram.jobs.store.StoreChange.Sweep;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * The retention sweeps whose rows are emitted and whose deletes wait for the checkpoint holding those rows to
 * complete (docs/contracts.md, "The retention row, exactly once"): by the checkpoint they fell before, and in the
 * writer's operator state, so a restore finds the deletes its checkpoint still had waiting.
 */
final class SweepsAwaitingCheckpoint {

    private final ListState<Sweep> inState;
    private final List<Sweep> beforeNextCheckpoint = new ArrayList<>();
    private final TreeMap<Long, List<Sweep>> byCheckpoint = new TreeMap<>();

    SweepsAwaitingCheckpoint(OperatorStateStore state) throws Exception {
        inState = state.getListState(new ListStateDescriptor<>("sweeps-to-delete", TypeInformation.of(Sweep.class)));
    }

    /** The sweeps the restored checkpoint had waiting (their rows are in PostgreSQL), no longer waiting. */
    List<Sweep> restored() throws Exception {
        List<Sweep> restored = new ArrayList<>();
        inState.get().forEach(restored::add);
        inState.clear();
        return restored;
    }

    void add(Sweep sweep) {
        beforeNextCheckpoint.add(sweep);
    }

    /** Checkpoint {@code id} is taken: the sweeps before it wait for it, and every waiting one goes into it. */
    void snapshot(long id) throws Exception {
        if (!beforeNextCheckpoint.isEmpty()) {
            byCheckpoint.put(id, List.copyOf(beforeNextCheckpoint));
            beforeNextCheckpoint.clear();
        }
        List<Sweep> waiting = new ArrayList<>();
        byCheckpoint.values().forEach(waiting::addAll);
        inState.update(waiting);
    }

    /** Checkpoint {@code id} completed: the sweeps that waited for it or an earlier one, no longer waiting. */
    List<Sweep> completed(long id) {
        var done = byCheckpoint.headMap(id, true);
        List<Sweep> due = new ArrayList<>();
        done.values().forEach(due::addAll);
        done.clear();
        return due;
    }
}
