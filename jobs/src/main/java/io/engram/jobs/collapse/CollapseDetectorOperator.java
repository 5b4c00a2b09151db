package io.engram.jobs.collapse;

import io.engram.jobs.store.StoreChange;
import io.engram.model.collapse.CycleMetrics;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Runs the {@link CollapseDetectorFunction} and, before each checkpoint barrier, writes the store shapes it
 * changed since the last one to keyed state: one state write per active tenant and checkpoint instead of one
 * per record (with RocksDB each state write serializes the whole shape). After each element and timer it has
 * the function keep the shapes it holds within their bound, writing back the least recently used early (which
 * needs the operator: only it selects another tenant's key). At start it has the function count what the
 * restored state holds, for its gauges.
 */
public final class CollapseDetectorOperator extends KeyedProcessOperator<String, StoreChange, CycleMetrics> {

    private static final long serialVersionUID = 1L;

    public CollapseDetectorOperator(CollapseDetectorFunction detector) {
        super(detector);
    }

    @Override
    public void open() throws Exception {
        super.open();
        detector().countRestored(getKeyedStateBackend());
    }

    @Override
    public void processElement(StreamRecord<StoreChange> element) throws Exception {
        super.processElement(element);
        boundHeldShapes();
    }

    @Override
    public void onEventTime(InternalTimer<String, VoidNamespace> timer) throws Exception {
        super.onEventTime(timer);
        boundHeldShapes();
    }

    @Override
    public void onProcessingTime(InternalTimer<String, VoidNamespace> timer) throws Exception {
        super.onProcessingTime(timer);
        boundHeldShapes();
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        detector().writeBackShapes(this::setCurrentKey);
    }

    private void boundHeldShapes() throws Exception {
        detector().boundHeldShapes((String) getCurrentKey(), this::setCurrentKey);
    }

    private CollapseDetectorFunction detector() {
        return (CollapseDetectorFunction) userFunction;
    }
}
