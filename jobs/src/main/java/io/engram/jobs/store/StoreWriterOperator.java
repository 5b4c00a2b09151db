package io.engram.jobs.store;

import io.engram.jobs.BatchingOperator;
import io.engram.model.collapse.CycleClock;
import io.engram.model.retrieval.MemoryRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Writes store changes to OpenSearch in bulk and then passes the learning-store ones on, stamped with their
 * cycle, to the collapse detector chained behind it. Runs keyed by tenant.
 *
 * <p>Changes are written in batches ({@link BatchingOperator}: {@code maxBulk} changes or {@code maxDelay}).
 * Ids are deterministic, so a replay after a restore rewrites the same documents. Writing before forwarding means the detector only ever sees changes
 * that are in OpenSearch, and no watermark overtakes a buffered change. A write retries while OpenSearch is
 * unavailable ({@link RetryPolicy}), which backs the pipeline up instead of losing records.
 *
 * <p>When a write opens a new cycle for its tenant ({@link CycleClock}), the buffer is written first and a
 * {@link StoreOp.Kind#CLOSE_CYCLE} is emitted before the new cycle's change is buffered: the detector scores the
 * closed cycle's canaries while OpenSearch holds exactly that cycle's writes of the tenant.
 */
public final class StoreWriterOperator extends BatchingOperator<StoreOp> {

    private static final long serialVersionUID = 1L;

    private final String openSearchUrl;
    private final String index;
    private final RetryPolicy retry;
    private final int vectorDimension;
    private final int maxBulk;
    private final CycleClock clock;

    private transient OpenSearchMemoryStore store;
    private transient int buffered;
    private transient ValueState<String> openCycle;
    private transient ValueState<Long> lastWrite;

    /** Creates the index (and installs its template) for vectors of {@code vectorDimension} if it is missing. */
    public StoreWriterOperator(String openSearchUrl, String index, int vectorDimension, RetryPolicy retry, int maxBulk,
                               Duration maxDelay, Duration quietGap) {
        super(maxDelay);
        this.openSearchUrl = openSearchUrl;
        this.index = index;
        this.vectorDimension = vectorDimension;
        this.retry = retry;
        this.maxBulk = maxBulk;
        this.clock = new CycleClock(quietGap);
    }

    @Override
    public void open() throws Exception {
        super.open();
        store = new OpenSearchMemoryStore(openSearchUrl, index, retry);
        store.ensureIndex(vectorDimension);
        openCycle = getKeyedStateStore().getState(new ValueStateDescriptor<>("open-cycle", Types.STRING));
        lastWrite = getKeyedStateStore().getState(new ValueStateDescriptor<>("last-learning-write", Types.LONG));
    }

    @Override
    public void processElement(StreamRecord<StoreOp> element) throws Exception {
        StoreOp op = element.getValue();
        if (op.touchesLearningStore()) {
            Long last = lastWrite.value();
            CycleClock.Decision d = clock.next(openCycle.value(), last == null ? 0 : last, op.cycleId(), op.tsMillis());
            if (d.closes() != null) {
                flush();
                output.collect(new StreamRecord<>(StoreOp.closeCycle(op.tenantId(), d.closes(), d.closeReason(), last),
                        last));
            }
            openCycle.update(d.cycleId());
            lastWrite.update(last == null ? op.tsMillis() : Math.max(last, op.tsMillis()));
            op = op.withCycle(d.cycleId());
        }
        add(op, element);
    }

    @Override
    protected boolean isFull(StoreOp added) {
        return ++buffered >= maxBulk;
    }

    @Override
    protected void process(List<StreamRecord<StoreOp>> records) {
        List<MemoryRecord> upserts = new ArrayList<>();
        for (StreamRecord<StoreOp> e : records) {
            StoreOp op = e.getValue();
            switch (op.kind()) {
                case UPSERT -> upserts.add(op.toRecord());
                case DELETE -> {
                    writeUpserts(upserts);
                    store.delete(op.tenantId(), List.of(op.id()));
                }
                case REPLACE_DOCUMENT -> {
                    writeUpserts(upserts);
                    store.deleteOlderDocumentVersions(op.tenantId(), op.agentId(), op.docPath(), op.docVersion());
                }
                default -> {
                    // merge signals are counted by the detector, not written
                }
            }
        }
        writeUpserts(upserts);
        for (StreamRecord<StoreOp> e : records) {
            if (e.getValue().touchesLearningStore()) {
                output.collect(e.replace(e.getValue().withoutVector()));
            }
        }
        buffered = 0;
    }

    private void writeUpserts(List<MemoryRecord> upserts) {
        if (!upserts.isEmpty()) {
            store.upsert(upserts);
            upserts.clear();
        }
    }

    @Override
    public void close() throws Exception {
        if (store != null) {
            store.close();
        }
        super.close();
    }
}
