package io.engram.jobs.collapse;

import io.engram.jobs.store.StoreChange;
import io.engram.model.collapse.CycleMetrics;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;

/**
 * Runs the {@link CollapseDetectorFunction} and, before each checkpoint barrier, writes the store shapes it
 * changed since the last one to keyed state: one state write per active tenant and checkpoint instead of one
 * per record (with RocksDB each state write serializes the whole shape). At start it has the function count
 * what the restored state holds, for its gauges.
 */
public final class CollapseDetectorOperator extends KeyedProcessOperator<String, StoreChange, CycleMetrics> {

    private static final long serialVersionUID = 1L;

    public CollapseDetectorOperator(CollapseDetectorFunction detector) {
        super(detector);
    }

    @Override
    public void open() throws Exception {
        super.open();
        ((CollapseDetectorFunction) userFunction).countRestored(getKeyedStateBackend());
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        ((CollapseDetectorFunction) userFunction).writeBackShapes(this::setCurrentKey);
    }
}
