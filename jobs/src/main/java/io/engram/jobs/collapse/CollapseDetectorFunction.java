package io.engram.jobs.collapse;

import io.engram.jobs.EngramMetrics;
import io.engram.jobs.store.StoreChange;
import io.engram.model.collapse.CanaryScores;
import io.engram.model.collapse.CanarySet;
import io.engram.model.collapse.CollapseAlerts;
import io.engram.model.collapse.CollapseConfig;
import io.engram.model.collapse.CycleClock;
import io.engram.model.collapse.CycleMetrics;
import io.engram.model.collapse.CycleRows;
import io.engram.model.collapse.StoreShape;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.store.MemoryStore;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.TimeDomain;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The collapse and churn detector of one tenant (docs/contracts.md §D), keyed by tenant, chained behind the
 * {@link io.engram.jobs.store.StoreWriterOperator} so every change it sees is already in OpenSearch. Keyed state:
 * the store shape (updated per write, never rescanned), the frozen canary set, the last W rows of that set and
 * the open cycle's counters. A tenant's shape is read from state once per checkpoint interval and kept on the
 * heap while it changes ({@link LiveShapes}, bounded by the entries it holds); {@link CollapseDetectorOperator}
 * writes the changed shapes back at the barrier, or earlier when the bound is passed, so with RocksDB a write
 * costs an in-memory update, not a (de)serialization of the whole shape.
 *
 * <p>A tenant's changes are applied in event-time order (docs/algorithms.md §D, "Cycles, in event-time order"):
 * each waits in {@link PendingChanges} until the watermark passes the time it was written at, or, on a live run,
 * until the wall clock is {@code wallClockGrace} past its arrival with event time standing still; one already behind
 * the watermark is applied as it comes. Closing scores the canaries with BM25 over the shape ({@link CanarySet#ranks}),
 * evaluates the alerts ({@link CollapseAlerts}) and emits the {@code cycle_metrics} row; alerts and minted canaries go
 * to side outputs. A cycle closed again after a restore writes the same row.
 *
 * <p>The store is read only to upgrade a shape restored from the first state format, whose entries lack the
 * words and source refs canary scoring needs: their texts are read back from OpenSearch once.
 */
public final class CollapseDetectorFunction extends KeyedProcessFunction<String, StoreChange, CycleMetrics> {

    private static final long serialVersionUID = 1L;

    /** The alerts fired on each closed cycle. */
    public static final OutputTag<FiredAlert> ALERTS = new OutputTag<>("collapse-alerts", DetectorSerializers.ALERTS);
    /** The canaries of each newly minted set. */
    public static final OutputTag<MintedCanary> CANARIES = new OutputTag<>("canary-queries", DetectorSerializers.CANARIES);
    /** The type of the detector's main output, its cycle rows. */
    public static final TypeInformation<CycleMetrics> CYCLE_ROWS = DetectorSerializers.CYCLE_ROWS;

    private final MemoryStore.Factory storeFactory;
    private final CollapseConfig config;
    private final CycleClock clock;
    private final boolean metricsEnabled;
    private final long heldShapeRecords;
    private final Duration wallClockGrace;

    private transient MemoryStore store;
    private transient EventTimeWatch eventTime;
    private transient ValueState<StoreShape> shape;
    private transient ValueState<CanarySet> canaries;
    private transient ListState<CycleMetrics> history;
    /** The canary set and history as state written before they were typed: read once per tenant, then cleared. */
    private transient ValueState<String> canariesAsJson;
    private transient ListState<String> historyAsJson;
    private transient ValueState<OpenCycle> open;
    /** The changes the watermark has not passed yet. */
    private transient PendingChanges pending;
    /** The shapes read since the last barrier, by tenant, and which of them changed. */
    private transient LiveShapes liveShapes;
    /** The size of the tenant's shape as last written, so the records of every tenant add up without reading shapes. */
    private transient ValueState<Integer> shapeSize;
    private transient EngramMetrics metrics;
    private transient Counter cyclesClosed;
    /** Tenants with a shape, tenants with an open cycle and records in all shapes, on this subtask. */
    private transient volatile long tenants;
    private transient volatile long openCycles;
    private transient volatile long shapeRecords;

    public CollapseDetectorFunction(MemoryStore.Factory storeFactory, CollapseDetectorSettings settings) {
        this.storeFactory = storeFactory;
        this.config = settings.collapse();
        this.clock = new CycleClock(settings.quietGap());
        this.metricsEnabled = settings.metricsEnabled();
        this.heldShapeRecords = settings.heldShapeRecords();
        this.wallClockGrace = settings.wallClockGrace();
    }

    @Override
    public void open(OpenContext context) {
        store = storeFactory.open();
        shape = getRuntimeContext().getState(new ValueStateDescriptor<>("store-shape", StoreShapeSerializer.INSTANCE));
        canaries = getRuntimeContext().getState(new ValueStateDescriptor<>("canaries",
                DetectorSerializers.CanarySetSerializer.INSTANCE));
        history = getRuntimeContext().getListState(new ListStateDescriptor<>("history",
                DetectorSerializers.CycleMetricsSerializer.INSTANCE));
        canariesAsJson = getRuntimeContext().getState(LegacyDetectorJson.canariesDescriptor());
        historyAsJson = getRuntimeContext().getListState(LegacyDetectorJson.historyDescriptor());
        open = getRuntimeContext().getState(openCycleDescriptor());
        pending = new PendingChanges(getRuntimeContext());
        eventTime = new EventTimeWatch();
        shapeSize = getRuntimeContext().getState(shapeSizeDescriptor());
        liveShapes = new LiveShapes(heldShapeRecords);
        metrics = EngramMetrics.of(getRuntimeContext().getMetricGroup(), metricsEnabled);
        cyclesClosed = metrics.counter("cycles_closed");
        metrics.gauge("detector_tenants", () -> tenants);
        metrics.gauge("detector_open_cycles", () -> openCycles);
        metrics.gauge("detector_shape_records", () -> shapeRecords);
        metrics.gauge("detector_held_shape_records", liveShapes::heldRecords);
    }

    private static ValueStateDescriptor<OpenCycle> openCycleDescriptor() {
        return new ValueStateDescriptor<>("open-cycle", TypeInformation.of(OpenCycle.class));
    }

    private static ValueStateDescriptor<Integer> shapeSizeDescriptor() {
        return new ValueStateDescriptor<>("shape-size", Types.INT);
    }

    /**
     * Counts the tenants, open cycles and shape records in the restored state (small values only: no shape is
     * read); a shape written before its size was kept is counted when it is first read.
     */
    void countRestored(KeyedStateBackend<String> backend) throws Exception {
        long[] counts = new long[3];
        backend.applyToAllKeys(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, openCycleDescriptor(),
                (tenant, state) -> counts[0]++);
        backend.applyToAllKeys(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, shapeSizeDescriptor(),
                (tenant, state) -> {
                    counts[1]++;
                    counts[2] += state.value();
                });
        openCycles = counts[0];
        tenants = counts[1];
        shapeRecords = counts[2];
    }

    @Override
    public void processElement(StoreChange change, Context ctx, Collector<CycleMetrics> out) throws Exception {
        eventTime.look(ctx.timerService());
        long writtenAt = change.writtenAt(ctx.timestamp());
        if (writtenAt <= ctx.timerService().currentWatermark()) {
            apply(change, writtenAt, ctx, out); // behind the watermark already: no timer of its time will fire again
            return;
        }
        pending.add(writtenAt, change);
        ctx.timerService().registerEventTimeTimer(writtenAt);
        if (wallClockGrace != null) { // one timer a second per tenant at most
            long at = ctx.timerService().currentProcessingTime() + wallClockGrace.toMillis();
            ctx.timerService().registerProcessingTimeTimer(at - at % 1000 + 1000);
        }
    }

    /**
     * Applies a change in the tenant's event-time order: the cycle it falls into ({@link CycleClock}, closing the open
     * one first when it ends there), then the shape and the cycle's counters.
     */
    private void apply(StoreChange change, long writtenAt, Context ctx, Collector<CycleMetrics> out) throws Exception {
        OpenCycle cycle = open.value();
        CycleClock.Decision d = clock.next(cycle == null ? null : cycle.cycleId(),
                cycle == null ? 0 : cycle.lastWriteMillis(), change.cycleId(), writtenAt);
        if (d.closes() != null) {
            close(cycle, d.closeReason(), ctx, out);
            cycle = null;
        }
        long accepted = applyToShape(change, ctx.getCurrentKey());
        long lastWrite = cycle == null ? writtenAt : Math.max(cycle.lastWriteMillis(), writtenAt);
        long timer = moveQuietTimer(cycle, lastWrite, ctx);
        int floorViolations = change instanceof StoreChange.MergeSignals m ? m.floorViolations() : 0;
        int guardRefusals = change instanceof StoreChange.MergeSignals m ? m.guardRefusals() : 0;
        if (cycle == null) {
            openCycles++;
            open.update(new OpenCycle(d.cycleId(), lastWrite, accepted, floorViolations, guardRefusals, timer));
        } else {
            open.update(new OpenCycle(cycle.cycleId(), lastWrite, cycle.acceptedActions() + accepted,
                    cycle.mergeFloorViolations() + floorViolations, cycle.generationGuardRefusals() + guardRefusals,
                    timer));
        }
    }

    /** Applies a write to the tenant's shape; returns 1 when the store took it (an upsert, a delete of a record it held). */
    private long applyToShape(StoreChange change, String tenant) throws IOException {
        StoreShape current = shapeOf(tenant);
        int sizeBefore = current.size();
        long accepted = 0;
        if (change instanceof StoreChange.Upsert upsert) {
            MemoryRecord r = upsert.record();
            current.upsert(ShapeEntries.of(r.tenantId(), r.id(), r.type(), r.text(), r.generation(), r.sourceRefs()));
            accepted = 1;
        } else if (change instanceof StoreChange.Delete delete) {
            accepted = current.delete(delete.id()) ? 1 : 0;
        }
        shapeRecords += current.size() - sizeBefore;
        liveShapes.changed(tenant, current.size() - sizeBefore);
        return accepted;
    }

    /** Sets the open cycle's quiet-gap timer a quiet gap after {@code lastWrite}; returns its time. */
    private long moveQuietTimer(OpenCycle cycle, long lastWrite, Context ctx) throws Exception {
        long timer = clock.quietCloseAt(lastWrite);
        if (cycle != null && cycle.quietTimer() != timer) {
            dropQuietTimer(cycle, ctx);
        }
        if (cycle == null || cycle.quietTimer() != timer) {
            ctx.timerService().registerEventTimeTimer(timer);
        }
        return timer;
    }

    /**
     * The watermark passed {@code timestamp}: the open cycle closes if it has been quiet since, then the changes
     * written at that time are applied ({@link PendingChanges#SAME_TIME_ORDER}).
     */
    /** Deletes a cycle's quiet timer, unless changes written at that time wait for it too. */
    private void dropQuietTimer(OpenCycle cycle, Context ctx) throws Exception {
        if (!pending.waitAt(cycle.quietTimer())) {
            ctx.timerService().deleteEventTimeTimer(cycle.quietTimer());
        }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<CycleMetrics> out) throws Exception {
        eventTime.look(ctx.timerService());
        if (ctx.timeDomain() == TimeDomain.PROCESSING_TIME) {
            long stillUntil = eventTime.stillFor(wallClockGrace.toMillis());
            if (stillUntil > ctx.timerService().currentProcessingTime()) {
                // event time moves (or was not seen yet since a restore): its own timers apply these in order
                ctx.timerService().registerProcessingTimeTimer(stillUntil - stillUntil % 1000 + 1000);
                return;
            }
            // event time stood still for the grace: the tenant's waiting changes are applied, in their order
            for (long writtenAt : pending.times()) {
                for (StoreChange change : pending.take(writtenAt)) {
                    apply(change, writtenAt, ctx, out);
                }
            }
            return;
        }
        OpenCycle cycle = open.value();
        if (cycle != null && cycle.quietTimer() == timestamp) {
            close(cycle, CycleClock.BY_QUIET_GAP, ctx, out);
        }
        for (StoreChange change : pending.take(timestamp)) {
            apply(change, timestamp, ctx, out);
        }
    }

    private void close(OpenCycle cycle, String reason, Context ctx, Collector<CycleMetrics> out) throws Exception {
        String tenant = ctx.getCurrentKey();
        StoreShape current = shapeOf(tenant);
        CanarySet set = canarySet();
        if (set == null && current.size() > 0) {
            set = CanarySet.mint(current, config.canaryCount());
            canaries.update(set);
            Instant mintedAt = Instant.ofEpochMilli(cycle.lastWriteMillis());
            for (CanarySet.Canary c : set.canaries()) {
                ctx.output(CANARIES, new MintedCanary(tenant, set.id(), c, mintedAt));
            }
        }
        int[] rankValues = set == null ? new int[0] : set.ranks(current, config.k());
        List<Map.Entry<String, Integer>> ranks = new ArrayList<>();
        for (int i = 0; i < rankValues.length; i++) {
            ranks.add(new SimpleImmutableEntry<>(set.canaries().get(i).id(), rankValues[i]));
        }
        CanaryScores scores = CanaryScores.of(rankValues);
        StoreShape.Metrics m = current.metrics();
        Map<String, Long> byType = new TreeMap<>();
        m.byType().forEach((type, n) -> byType.put(type.label(), n));
        CycleMetrics row = new CycleMetrics(tenant, cycle.cycleId(), Instant.ofEpochMilli(cycle.lastWriteMillis()),
                reason, set == null ? "none" : set.id(), rankValues.length, scores.meanRecall(), scores.meanNdcg(),
                scores.meanMrr(), ranks, m.total(), byType, m.distinctContentRatio(), m.meanBigramDiversity(),
                m.overGenerationCount(), cycle.acceptedActions(), cycle.mergeFloorViolations(),
                cycle.generationGuardRefusals(), List.of());
        List<CycleMetrics> past = pastRows();
        List<CollapseAlerts.Alert> alerts = CollapseAlerts.evaluate(past, row, config);
        row = row.withAlerts(alerts.stream().map(a -> a.kind().label()).toList());
        out.collect(row);
        cyclesClosed.inc();
        for (CollapseAlerts.Alert a : alerts) {
            metrics.counter("alerts", "kind", a.kind().label()).inc();
            ctx.output(ALERTS, new FiredAlert(tenant, row.cycleId(), a.kind(), row.ts(), row.canarySetId(), a.detail()));
        }
        keepInHistory(past, row);
        dropQuietTimer(cycle, ctx);
        open.clear();
        openCycles--;
    }

    /** The last W rows of the row's canary set, the row last (a cycle closed again replaces its earlier row). */
    private void keepInHistory(List<CycleMetrics> past, CycleMetrics row) throws Exception {
        List<CycleMetrics> kept = new ArrayList<>();
        for (CycleMetrics r : past) {
            if (r.canarySetId().equals(row.canarySetId()) && !r.cycleId().equals(row.cycleId())) {
                kept.add(r);
            }
        }
        kept.add(row);
        history.update(kept.subList(Math.max(0, kept.size() - config.window()), kept.size()));
        historyAsJson.clear();
    }

    /** The tenant's canary set, moved into typed state on first use when it was written as JSON. */
    private CanarySet canarySet() throws IOException {
        CanarySet set = canaries.value();
        String json = canariesAsJson.value();
        if (set == null && json != null) {
            set = LegacyDetectorJson.canarySet(json);
            canaries.update(set);
            canariesAsJson.clear();
        }
        return set;
    }

    /** The tenant's history window, oldest first, with rows still held as JSON read once. */
    private List<CycleMetrics> pastRows() throws Exception {
        List<CycleMetrics> past = new ArrayList<>();
        for (String json : historyAsJson.get()) {
            past.add(CycleRows.fromJson(json));
        }
        history.get().forEach(past::add);
        return past;
    }

    /** The tenant's shape: the one already on the heap this interval, else the one in state (the current key's). */
    private StoreShape shapeOf(String tenant) throws IOException {
        StoreShape live = liveShapes.get(tenant);
        if (live == null) {
            StoreShape stored = shape.value(); // one read: on RocksDB each is a whole-shape deserialization
            live = stored == null ? new StoreShape(config.maxGeneration()) : stored;
            liveShapes.hold(tenant, live);
            if (shapeSize.value() == null) { // a new tenant, or a shape whose size was not kept: not counted yet
                tenants++;
                shapeRecords += live.size();
                liveShapes.changed(tenant, 0);
            }
            if (ShapeEntries.readBackTexts(store, tenant, live)) {
                liveShapes.changed(tenant, 0);
            }
        }
        return live;
    }

    /**
     * Writes the shapes changed since the last call to keyed state, selecting each tenant with {@code setKey},
     * and forgets the heap copies (the next write reads state again, so no object is shared with a snapshot).
     */
    void writeBackShapes(Consumer<String> setKey) throws IOException {
        liveShapes.writeBackAll(writingBack(setKey));
    }

    /**
     * Past the bound on held entries, writes back and forgets the shapes of the tenants touched least recently,
     * then selects {@code current} again (the tenant whose element or timer was just processed).
     */
    void boundHeldShapes(String current, Consumer<String> setKey) throws IOException {
        liveShapes.evict(current, writingBack(setKey));
        setKey.accept(current);
    }

    /** The shape entries held on the heap now, all tenants together. */
    long heldShapeRecords() {
        return liveShapes.heldRecords();
    }

    private LiveShapes.WriteBack writingBack(Consumer<String> setKey) {
        return (tenant, live) -> {
            setKey.accept(tenant);
            shape.update(live);
            shapeSize.update(live.size());
        };
    }

    @Override
    public void close() {
        if (store != null) {
            store.close();
        }
    }
}
