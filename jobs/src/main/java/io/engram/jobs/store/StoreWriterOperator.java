package io.engram.jobs.store;

import io.engram.jobs.BatchingOperator;
import io.engram.jobs.EngramMetrics;
import io.engram.jobs.RecordLog;
import io.engram.jobs.ingest.ForgetEvent;
import io.engram.model.collapse.CycleClock;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.store.MemoryStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * Writes store changes to OpenSearch in bulk and then passes the learning-store ones on, stamped with their
 * cycle, to the collapse detector chained behind it. Runs keyed by tenant.
 *
 * <p>Changes are written in batches ({@link BatchingOperator}: {@code maxBulk} changes or {@code maxDelay}).
 * Ids are deterministic, so a replay after a restore rewrites the same documents. Writing before forwarding means the detector only ever sees changes
 * that are in OpenSearch, and no watermark overtakes a buffered change. A write retries while OpenSearch is
 * unavailable (the store's {@link RetryPolicy}), which backs the pipeline up instead of losing records.
 *
 * <p>When a write opens a new cycle for its tenant ({@link CycleClock}), the buffer is written first and a
 * {@link StoreOp.Kind#CLOSE_CYCLE} is emitted before the new cycle's change is buffered: the detector scores the
 * closed cycle's canaries while OpenSearch holds exactly that cycle's writes of the tenant.
 *
 * <p>A tenant's sessions are compacted on different keys, maybe different subtasks, so their changes arrive in
 * an order that depends on timing. Changes from compaction therefore wait in keyed state until the watermark
 * passes the event time compaction made them at, and are applied in that time's order (then by session): the
 * cycles they fall into, and what OpenSearch holds when a cycle closes, depend on the input only. Compaction
 * emits a change when its own watermark passes that time, so the wait is only for the slowest subtask.
 * Gateway writes are applied as they come, for freshness.
 *
 * <p>A forget is applied in the tenant's order of changes: the buffer before it is written, then OpenSearch
 * deletes what it covers ({@link MemoryStore#forget}), and its completion goes to the {@link #FORGETS_DONE} side
 * output. Compaction changes it covers that wait for the watermark are dropped, and it is kept in keyed state for
 * {@code forgetRetention} so a covered record that arrives after it (from another partition, or compaction's
 * last summaries of a forgotten session) is dropped too.
 */
public final class StoreWriterOperator extends BatchingOperator<StoreOp> implements Triggerable<String, VoidNamespace> {

    private static final long serialVersionUID = 1L;

    private final MemoryStore.Factory storeFactory;
    private final String embeddingModel;
    private final int vectorDimension;
    private final int maxBulk;
    private final CycleClock clock;
    private final long forgetRetentionMillis;
    private final boolean metricsEnabled;

    /** The forgets applied, for the {@code forgets} table. */
    public static final OutputTag<ForgetCompleted> FORGETS_DONE = new OutputTag<>("forgets-done",
            TypeInformation.of(ForgetCompleted.class));

    private transient MemoryStore store;
    private transient int buffered;
    private transient ValueState<String> openCycle;
    private transient ValueState<Long> lastWrite;
    private transient ListState<TimedChange> compactionChanges;
    private transient InternalTimerService<VoidNamespace> compactionTimers;
    private transient ListState<ForgetEvent> forgets;
    private transient Histogram bulkMillis;
    private transient Counter documentsIndexed;
    private transient Counter documentsDeleted;
    private transient Counter forgetsApplied;
    private transient Counter droppedAsForgotten;
    private transient Histogram freshnessMillis;

    /** A change from compaction waiting for the watermark, with the event time it was made at. */
    public record TimedChange(long at, StoreOp op) {
    }

    private static final Comparator<TimedChange> EVENT_TIME_ORDER = Comparator.comparingLong(TimedChange::at)
            .thenComparing(c -> c.op().sessionId(), Comparator.nullsFirst(Comparator.naturalOrder()));

    /** Creates the index (and installs its template) for vectors of {@code vectorDimension} if it is missing. */
    public StoreWriterOperator(MemoryStore.Factory storeFactory, String embeddingModel, int vectorDimension, int maxBulk,
                               Duration maxDelay, Duration quietGap, Duration forgetRetention, boolean metricsEnabled) {
        super(maxDelay);
        this.storeFactory = storeFactory;
        this.embeddingModel = embeddingModel;
        this.vectorDimension = vectorDimension;
        this.maxBulk = maxBulk;
        this.clock = new CycleClock(quietGap);
        this.forgetRetentionMillis = forgetRetention.toMillis();
        this.metricsEnabled = metricsEnabled;
    }

    @Override
    public void open() throws Exception {
        super.open();
        store = storeFactory.open();
        store.ensureIndex(embeddingModel, vectorDimension);
        openCycle = getKeyedStateStore().getState(new ValueStateDescriptor<>("open-cycle", Types.STRING));
        lastWrite = getKeyedStateStore().getState(new ValueStateDescriptor<>("last-learning-write", Types.LONG));
        compactionChanges = getKeyedStateStore().getListState(
                new ListStateDescriptor<>("compaction-changes", TypeInformation.of(TimedChange.class)));
        forgets = getKeyedStateStore().getListState(
                new ListStateDescriptor<>("forgets", TypeInformation.of(ForgetEvent.class)));
        compactionTimers = getInternalTimerService("compaction-order", VoidNamespaceSerializer.INSTANCE, this);
        EngramMetrics metrics = EngramMetrics.of(getMetricGroup(), metricsEnabled);
        bulkMillis = metrics.histogram("opensearch_bulk_millis");
        documentsIndexed = metrics.counter("opensearch_documents", "op", "index");
        documentsDeleted = metrics.counter("opensearch_documents", "op", "delete");
        forgetsApplied = metrics.counter("forgets_applied");
        droppedAsForgotten = metrics.counter("records_dropped_forgotten");
        freshnessMillis = metrics.histogram("freshness_millis");
        MemoryStore written = store;
        metrics.gauge("opensearch_retries", () -> written.writeStats().retries());
        metrics.gauge("opensearch_documents_failed", () -> written.writeStats().documentsFailed());
    }

    @Override
    public void processElement(StreamRecord<StoreOp> element) throws Exception {
        StoreOp op = element.getValue();
        if (op.kind() == StoreOp.Kind.FORGET) {
            remember(op.toForget());
            add(op, element);
            return;
        }
        if (op.fromCompaction() && element.hasTimestamp()
                && element.getTimestamp() > compactionTimers.currentWatermark()) {
            compactionChanges.add(new TimedChange(element.getTimestamp(), op));
            compactionTimers.registerEventTimeTimer(VoidNamespace.INSTANCE, element.getTimestamp());
        } else {
            apply(op, element); // a gateway write, or a compaction change behind the watermark: no later timer
        }
    }

    /** Applies the tenant's compaction changes the watermark has passed, oldest first, and writes them. */
    @Override
    public void onEventTime(InternalTimer<String, VoidNamespace> timer) throws Exception {
        List<TimedChange> due = new ArrayList<>();
        List<TimedChange> later = new ArrayList<>();
        for (TimedChange c : compactionChanges.get()) {
            (c.at() <= timer.getTimestamp() ? due : later).add(c);
        }
        compactionChanges.update(later);
        due.sort(EVENT_TIME_ORDER); // stable: one compaction's changes keep their order
        for (TimedChange c : due) {
            apply(c.op(), new StreamRecord<>(c.op(), c.at()));
        }
        flush(); // before the watermark that released them is forwarded
    }

    @Override
    public void onProcessingTime(InternalTimer<String, VoidNamespace> timer) {
        throw new IllegalStateException("the writer sets no processing-time timers on keys");
    }

    /** Keeps a forget for later arrivals, and drops the waiting compaction changes it covers. */
    private void remember(ForgetEvent forget) throws Exception {
        List<ForgetEvent> kept = new ArrayList<>();
        for (ForgetEvent f : forgets.get()) {
            if (f.requestedAtMillis() >= forget.requestedAtMillis() - forgetRetentionMillis) {
                kept.add(f);
            }
        }
        kept.add(forget);
        forgets.update(kept);
        List<TimedChange> waiting = new ArrayList<>();
        for (TimedChange c : compactionChanges.get()) {
            if (!covered(c.op(), List.of(forget))) {
                waiting.add(c);
            } else {
                droppedAsForgotten.inc();
            }
        }
        compactionChanges.update(waiting);
    }

    private static boolean covered(StoreOp op, Iterable<ForgetEvent> by) {
        if (op.kind() != StoreOp.Kind.UPSERT) {
            return false;
        }
        List<String> refs = op.sourceRefs() == null ? List.of() : List.of(op.sourceRefs());
        for (ForgetEvent f : by) {
            if (f.covers(op.tenantId(), op.id(), op.sessionId(), op.userId(), refs, op.tsMillis())) {
                return true;
            }
        }
        return false;
    }

    private void apply(StoreOp op, StreamRecord<?> element) throws Exception {
        if (covered(op, forgets.get())) {
            droppedAsForgotten.inc();
            return; // forgotten before it arrived
        }
        if (op.touchesLearningStore()) {
            Long last = lastWrite.value();
            long writtenAt = op.writtenAt(element.hasTimestamp() ? element.getTimestamp() : null);
            CycleClock.Decision d = clock.next(openCycle.value(), last == null ? 0 : last, op.cycleId(), writtenAt);
            if (d.closes() != null) {
                flush();
                output.collect(new StreamRecord<>(StoreOp.closeCycle(op.tenantId(), d.closes(), d.closeReason(), last),
                        last));
            }
            openCycle.update(d.cycleId());
            lastWrite.update(last == null ? writtenAt : Math.max(last, writtenAt));
            op = op.withCycle(d.cycleId());
        }
        add(op, element);
    }

    @Override
    protected boolean countAndCheckFull(StoreOp added) {
        return ++buffered >= maxBulk;
    }

    @Override
    protected void process(List<StreamRecord<StoreOp>> records) {
        // In order: a run of upserts is one bulk request, a run of one tenant's deletes another.
        List<MemoryRecord> upserts = new ArrayList<>();
        List<String> deletes = new ArrayList<>();
        String deletesOf = null;
        for (StreamRecord<StoreOp> e : records) {
            StoreOp op = e.getValue();
            if (op.kind() != StoreOp.Kind.DELETE || !op.tenantId().equals(deletesOf)) {
                writeDeletes(deletesOf, deletes);
            }
            switch (op.kind()) {
                case UPSERT -> upserts.add(op.toRecord());
                case DELETE -> {
                    writeUpserts(upserts);
                    deletesOf = op.tenantId();
                    deletes.add(op.id());
                }
                case FORGET -> {
                    writeUpserts(upserts);
                    ForgetEvent f = op.toForget();
                    long removed = store.forget(f.tenantId(), f.scope(), f.target());
                    forgetsApplied.inc();
                    ForgetCompleted done = new ForgetCompleted(f.tenantId(), f.forgetId(), f.scope().label(),
                            f.target(), f.requestedAtMillis(), System.currentTimeMillis(), removed);
                    RecordLog.forgotten(done);
                    output.collect(FORGETS_DONE, e.hasTimestamp() ? new StreamRecord<>(done, e.getTimestamp())
                            : new StreamRecord<>(done));
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
        writeDeletes(deletesOf, deletes);
        long acknowledged = System.currentTimeMillis();
        for (StreamRecord<StoreOp> e : records) {
            if (e.getValue().kind() == StoreOp.Kind.UPSERT && e.hasTimestamp()) {
                freshnessMillis.update(Math.max(0, acknowledged - e.getTimestamp()));
            }
            if (e.getValue().touchesLearningStore()) {
                output.collect(e.replace(e.getValue().withoutVector()));
            }
        }
        buffered = 0;
    }

    private void writeDeletes(String tenantId, List<String> ids) {
        if (!ids.isEmpty()) {
            long start = System.nanoTime();
            store.delete(tenantId, ids);
            written(documentsDeleted, ids.size(), start);
            ids.clear();
        }
    }

    private void writeUpserts(List<MemoryRecord> upserts) {
        if (!upserts.isEmpty()) {
            long start = System.nanoTime();
            store.upsert(upserts);
            written(documentsIndexed, upserts.size(), start);
            upserts.clear();
        }
    }

    private void written(Counter counter, int documents, long startNanos) {
        bulkMillis.update((System.nanoTime() - startNanos) / 1_000_000);
        counter.inc(documents);
    }

    @Override
    public void close() throws Exception {
        if (store != null) {
            store.close();
        }
        super.close();
    }
}
