package io.engram.jobs.store;

import io.engram.jobs.BatchingOperator;
import io.engram.jobs.EngramMetrics;
import io.engram.jobs.PipelineConfig;
import io.engram.jobs.RecordLog;
import io.engram.jobs.changes.ChangeMessages;
import io.engram.jobs.ingest.ForgetEvent;
import io.engram.jobs.store.StoreChange.Delete;
import io.engram.jobs.store.StoreChange.Forget;
import io.engram.jobs.store.StoreChange.MergeSignals;
import io.engram.jobs.store.StoreChange.ReplaceDocument;
import io.engram.jobs.store.StoreChange.Sweep;
import io.engram.jobs.store.StoreChange.Upsert;
import io.engram.model.facts.FactPolicy;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.store.MemoryStore;
import io.engram.store.MemoryWriter;
import java.io.Serializable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * Writes store changes in bulk and then passes the learning-store ones on to the collapse detector chained behind
 * it, which decides their cycles in event-time order. Runs keyed by tenant.
 *
 * <p>Changes are written in batches ({@link BatchingOperator}: {@code maxBulk} changes or {@code maxDelay}). Ids
 * are deterministic, so a replay after a restore rewrites the same documents. Writing before forwarding means the
 * detector only ever sees changes that are in the store, and no watermark overtakes a buffered change. A write
 * retries while OpenSearch is unavailable (the store's {@link io.engram.store.RetryPolicy}), which backs the
 * pipeline up instead of losing records.
 *
 * <p>A tenant's sessions are compacted on different keys, maybe different subtasks, so their changes arrive in
 * an order that depends on timing. Changes from compaction therefore wait in keyed state until the watermark
 * passes the event time compaction made them at, and are applied in that time's order (then by session), so the
 * store receives them in an order that depends on the input only. Compaction emits a change when its own
 * watermark passes that time, so the wait is only for the slowest subtask. Gateway writes are applied as they
 * come, for freshness.
 *
 * <p>A forget is applied in the tenant's order of changes: the buffer before it is written, then the store
 * deletes what it covers ({@link MemoryWriter#forget}), and its completion, stamped by the operator's clock, goes
 * to the {@link #FORGETS_DONE} side output. Compaction changes it covers that wait for the watermark are dropped,
 * and it is kept in keyed state for {@code forgetRetention} so a covered record that arrives after it (from
 * another partition, or compaction's last summaries of a forgotten session) is dropped too. A memory's facts
 * (what supersedes it, when it expires, retention sweeps) are decided as it is applied, in {@link FactKeeper}.
 */
public final class StoreWriterOperator extends BatchingOperator<StoreChange> implements Triggerable<String, VoidNamespace> {

    private static final long serialVersionUID = 2L;

    private final MemoryStore.Factory storeFactory;
    private final StoreWriterSettings settings;
    /** The wall clock of forget completions and freshness. */
    private final Clock clock;

    /** The forgets applied, for the {@code forgets} table. */
    public static final OutputTag<ForgetCompleted> FORGETS_DONE = new OutputTag<>("forgets-done",
            TypeInformation.of(ForgetCompleted.class));

    /** The changes the store took, for the change feed ({@link ChangeMessages}), once their batch is written. */
    public static final OutputTag<StoreChange> CHANGES = new OutputTag<>("changes", StoreChange.TYPE);

    private transient MemoryWriter store;
    /** The superseded marks of this batch whose memory the tenant's facts know as stored: what the feed tells. */
    private transient Set<StoreChange> marksOfStoredMemories;
    private transient int buffered;
    private transient ListState<HeldChange> heldChanges;
    private transient ListState<TimedChange> heldByEarlierVersion;
    private transient InternalTimerService<VoidNamespace> compactionTimers;
    private transient ListState<ForgetEvent> forgets;
    private transient FactKeeper facts;
    private transient SweepsAwaitingCheckpoint sweeps;
    private transient StoreWrites writes;
    private transient Counter refusedEdges;
    private transient Histogram bulkMillis;
    private transient Counter documentsIndexed;
    private transient Counter documentsDeleted;
    private transient Counter forgetsApplied;
    private transient Counter droppedAsForgotten;
    private transient Histogram freshnessMillis;

    /**
     * A held compaction change as the state of an earlier version kept it (Flink's POJO serializer finds this
     * class by name): read once per tenant into {@link HeldChange}s, never written.
     */
    public record TimedChange(long at, StoreOp op) {
    }

    private static final Comparator<HeldChange> EVENT_TIME_ORDER = Comparator.comparingLong(HeldChange::at)
            .thenComparing(c -> c.change().sessionId(), Comparator.nullsFirst(Comparator.naturalOrder()));

    /** Creates the index (and installs its template) for the settings' vectors if it is missing. */
    public StoreWriterOperator(MemoryStore.Factory storeFactory, StoreWriterSettings settings, Clock clock) {
        super(settings.maxDelay());
        this.storeFactory = storeFactory;
        this.settings = settings;
        this.clock = clock;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        sweeps = new SweepsAwaitingCheckpoint(context.getOperatorStateStore());
    }

    @Override
    public void open() throws Exception {
        super.open();
        MemoryStore opened = storeFactory.open();
        store = opened;
        marksOfStoredMemories = Collections.newSetFromMap(new IdentityHashMap<>());
        opened.ensureIndex(settings.embeddingModel(), settings.vectorDimension(), settings.vectorEncoding());
        sweeps.restored().forEach(this::deleteSwept); // their rows were written by the checkpoint restored
        heldChanges = getKeyedStateStore().getListState(
                new ListStateDescriptor<>("held-compaction-changes", HeldChange.Serializer.INSTANCE));
        heldByEarlierVersion = getKeyedStateStore().getListState(
                new ListStateDescriptor<>("compaction-changes", TypeInformation.of(TimedChange.class)));
        forgets = getKeyedStateStore().getListState(
                new ListStateDescriptor<>("forgets", TypeInformation.of(ForgetEvent.class)));
        compactionTimers = getInternalTimerService("compaction-order", VoidNamespaceSerializer.INSTANCE, this);
        facts = new FactKeeper(getKeyedStateStore(), getInternalTimerService("fact-timers", StringSerializer.INSTANCE,
                new FactTimers()), settings.wallClockGrace());
        openMetrics();
    }

    private void openMetrics() {
        EngramMetrics metrics = EngramMetrics.of(getMetricGroup(), settings.metricsEnabled());
        bulkMillis = metrics.histogram("opensearch_bulk_millis");
        documentsIndexed = metrics.counter("opensearch_documents", "op", "index");
        documentsDeleted = metrics.counter("opensearch_documents", "op", "delete");
        forgetsApplied = metrics.counter("forgets_applied");
        droppedAsForgotten = metrics.counter("records_dropped_forgotten");
        freshnessMillis = metrics.histogram("freshness_millis");
        refusedEdges = metrics.counter("supersede_edges_refused");
        Counter superseded = metrics.counter("opensearch_documents", "op", "supersede");
        writes = new StoreWrites(store, documentsIndexed, documentsDeleted, superseded, bulkMillis);
        MemoryWriter written = store;
        metrics.gauge("opensearch_retries", () -> written.writeStats().retries());
        metrics.gauge("opensearch_documents_failed", () -> written.writeStats().documentsFailed());
    }

    @Override
    public void processElement(StreamRecord<StoreChange> element) throws Exception {
        StoreChange change = element.getValue();
        if (change instanceof Forget forget) {
            remember(forget.event());
            facts.forgotten(forget.event());
            add(change, element);
            return;
        }
        if (change.fromCompaction() && element.hasTimestamp()
                && element.getTimestamp() > compactionTimers.currentWatermark()) {
            heldChanges.add(new HeldChange(element.getTimestamp(), change));
            compactionTimers.registerEventTimeTimer(VoidNamespace.INSTANCE, element.getTimestamp());
        } else {
            apply(change, element); // a gateway write, or a compaction change behind the watermark: no later timer
        }
    }

    /** Applies the tenant's compaction changes the watermark has passed, oldest first, and writes them. */
    @Override
    public void onEventTime(InternalTimer<String, VoidNamespace> timer) throws Exception {
        List<HeldChange> due = new ArrayList<>();
        List<HeldChange> later = new ArrayList<>();
        for (HeldChange c : held()) {
            (c.at() <= timer.getTimestamp() ? due : later).add(c);
        }
        heldChanges.update(later);
        due.sort(EVENT_TIME_ORDER); // stable: one compaction's changes keep their order
        for (HeldChange c : due) {
            apply(c.change(), new StreamRecord<>(c.change(), c.at()));
        }
        flush(); // before the watermark that released them is forwarded
    }

    /** The tenant's held changes, those an earlier version's state held included (moved here by the next update). */
    private List<HeldChange> held() throws Exception {
        List<HeldChange> held = new ArrayList<>();
        heldChanges.get().forEach(held::add);
        for (TimedChange earlier : heldByEarlierVersion.get()) {
            held.add(new HeldChange(earlier.at(), earlier.op().toChange()));
        }
        heldByEarlierVersion.clear();
        return held;
    }

    @Override
    public void onProcessingTime(InternalTimer<String, VoidNamespace> timer) {
        throw new IllegalStateException("the writer sets no processing-time timers on keys");
    }

    /** Keeps a forget for later arrivals, and drops the waiting compaction changes it covers. */
    private void remember(ForgetEvent forget) throws Exception {
        List<ForgetEvent> kept = new ArrayList<>();
        for (ForgetEvent f : forgets.get()) {
            if (f.requestedAtMillis() >= forget.requestedAtMillis() - settings.forgetRetention().toMillis()) {
                kept.add(f);
            }
        }
        kept.add(forget);
        forgets.update(kept);
        List<HeldChange> waiting = new ArrayList<>();
        for (HeldChange c : held()) {
            if (!covered(c.change(), List.of(forget))) {
                waiting.add(c);
            } else {
                droppedAsForgotten.inc();
            }
        }
        heldChanges.update(waiting);
    }

    private static boolean covered(StoreChange change, Iterable<ForgetEvent> by) {
        if (!(change instanceof Upsert upsert)) {
            return false;
        }
        MemoryRecord r = upsert.record();
        for (ForgetEvent f : by) {
            if (f.covers(r.tenantId(), r.id(), r.sessionId(), r.userId(), r.sourceRefs(), upsert.tsMillis())) {
                return true;
            }
        }
        return false;
    }

    private void apply(StoreChange change, StreamRecord<?> element) throws Exception {
        if (covered(change, forgets.get())) {
            droppedAsForgotten.inc();
            return; // forgotten before it arrived
        }
        List<StoreChange> decided = List.of(change);
        if (change instanceof Upsert upsert) {
            decided = settings.facts().supersession() ? supersede(upsert) : decided;
            facts.schedule(upsert.record(), settings.facts().retentionOf(upsert.tenantId()));
        }
        for (StoreChange decidedChange : decided) {
            if (decidedChange instanceof StoreChange.Supersede mark && facts.stored(mark.id())) {
                marksOfStoredMemories.add(mark);
            }
            add(decidedChange, element);
        }
    }

    /** An upsert stamped with what supersedes it, and the marks of what it supersedes now. */
    private List<StoreChange> supersede(Upsert upsert) throws Exception {
        List<String> refused = new ArrayList<>();
        List<StoreChange> decided = facts.arrive(upsert, refused);
        if (!refused.isEmpty()) {
            refusedEdges.inc(refused.size());
            RecordLog.refusedSupersede(upsert.tenantId(), upsert.record().id(), refused);
        }
        return decided;
    }

    /**
     * The timers of expiries and retention sweeps: each applied as a forget, or a sweep, in the tenant's order. Event
     * time applies them once the watermark passes their time; the wall clock, {@code wallClockGrace} after it, when
     * the watermark has not (a quiet input, whose sources went idle, moves no watermark). Whichever fires second
     * finds it done.
     */
    private final class FactTimers implements Triggerable<String, String> {
        @Override
        public void onEventTime(InternalTimer<String, String> timer) throws Exception {
            fire(timer.getKey(), timer.getNamespace(), timer.getTimestamp());
        }

        @Override
        public void onProcessingTime(InternalTimer<String, String> timer) throws Exception {
            fire(timer.getKey(), timer.getNamespace(), timer.getTimestamp() - settings.wallClockGrace().toMillis());
        }

        private void fire(String tenant, String namespace, long at) throws Exception {
            StoreChange change = facts.fired(tenant, namespace, at, settings.facts().retentionOf(tenant));
            if (change instanceof Forget expiry) {
                remember(expiry.event());
                facts.forgotten(expiry.event());
            }
            if (change != null) {
                add(change, new StreamRecord<>(change, at));
                flush(); // before the watermark that fired it is forwarded
            }
        }
    }

    @Override
    protected boolean countAndCheckFull(StoreChange added) {
        return ++buffered >= settings.maxBulk();
    }

    @Override
    protected void process(List<StreamRecord<StoreChange>> records) {
        List<StreamRecord<StoreChange>> published = new ArrayList<>();
        for (StreamRecord<StoreChange> e : records) {
            StoreChange change = e.getValue();
            writes.add(change);
            boolean removedAny = true;
            if (change instanceof Forget forget) {
                applyForget(forget.event(), e);
            } else if (change instanceof ReplaceDocument r) {
                store.deleteOlderDocumentVersions(r.tenantId(), r.agentId(), r.docPath(), r.keepVersion());
            } else if (change instanceof Sweep sweep) {
                removedAny = applySweep(sweep, e);
            }
            if (removedAny && (ChangeMessages.published(change) || marksOfStoredMemories.remove(change))) {
                published.add(e.replace(change instanceof Upsert u ? u.withoutVector() : change));
            }
        }
        writes.flush();
        published.forEach(p -> output.collect(CHANGES, p));
        long acknowledged = clock.millis();
        for (StreamRecord<StoreChange> e : records) {
            StoreChange change = e.getValue();
            if (change instanceof Upsert && e.hasTimestamp()) {
                freshnessMillis.update(Math.max(0, acknowledged - e.getTimestamp()));
            }
            if (change.touchesLearningStore()) {
                output.collect(e.replace(change instanceof Upsert u ? u.withoutVector() : change));
            }
        }
        buffered = 0;
    }

    private void applyForget(ForgetEvent f, StreamRecord<StoreChange> e) {
        long removed = store.forget(f.tenantId(), f.scope(), f.target());
        forgetsApplied.inc();
        completed(new ForgetCompleted(f.tenantId(), f.forgetId(), f.scope().label(), f.target(), f.requestedAtMillis(),
                clock.millis(), removed), e);
    }

    /**
     * A retention sweep, in two steps so its audit row is written exactly once with the delete it records: what it
     * covers is counted and the row emitted now (none when it covers nothing: a replayed sweep finds nothing more);
     * the delete waits for the checkpoint after it to complete, when the row is in PostgreSQL. A restore deletes what
     * the checkpoint it restores still had waiting. (The pipeline always checkpoints: {@code EngramJob} sets the
     * interval.)
     */
    /** Whether the sweep covers any record. */
    private boolean applySweep(Sweep s, StreamRecord<StoreChange> e) {
        long covered = store.countOlderThan(s.tenantId(), s.type(), Instant.ofEpochMilli(s.cutoffMillis()));
        if (covered == 0) {
            return false;
        }
        completed(new ForgetCompleted(s.tenantId(), s.forgetId(), "retention", s.type().label(), s.tsMillis(),
                clock.millis(), covered), e);
        sweeps.add(s);
        return true;
    }

    private void deleteSwept(Sweep s) {
        store.deleteOlderThan(s.tenantId(), s.type(), Instant.ofEpochMilli(s.cutoffMillis()));
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        sweeps.snapshot(context.getCheckpointId());
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        sweeps.completed(checkpointId).forEach(this::deleteSwept);
    }

    private void completed(ForgetCompleted done, StreamRecord<StoreChange> e) {
        RecordLog.forgotten(done);
        output.collect(FORGETS_DONE, e.hasTimestamp() ? new StreamRecord<>(done, e.getTimestamp()) : new StreamRecord<>(done));
    }

    @Override
    public void close() throws Exception {
        if (store != null) {
            store.close();
        }
        super.close();
    }
}
