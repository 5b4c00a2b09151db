package io.engram.jobs.collapse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.jobs.store.OpenSearchMemoryStore;
import io.engram.jobs.store.RetryPolicy;
import io.engram.jobs.store.StoreOp;
import io.engram.model.collapse.CanaryScores;
import io.engram.model.collapse.CanarySet;
import io.engram.model.collapse.CollapseAlerts;
import io.engram.model.collapse.CollapseConfig;
import io.engram.model.collapse.CycleClock;
import io.engram.model.collapse.CycleMetrics;
import io.engram.model.collapse.CycleRows;
import io.engram.model.collapse.StoreShape;
import io.engram.model.retrieval.RecordType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
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
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The collapse and churn detector of one tenant (docs/contracts.md §D), keyed by tenant, chained behind the
 * {@link io.engram.jobs.store.StoreWriterOperator} so every change it sees is already in OpenSearch. Keyed state:
 * the store shape (updated per write, never rescanned), the frozen canary set, the last W rows of that set and
 * the open cycle's counters. A tenant's shape is read from state once per checkpoint interval and kept on the
 * heap while it changes; {@link CollapseDetectorOperator} writes the changed shapes back at the barrier, so
 * with RocksDB a write costs an in-memory update, not a (de)serialization of the whole shape. A cycle closes on the writer's {@code CLOSE_CYCLE} or, for the last cycle before a
 * pause, on an event-time timer a quiet gap after its last write. Closing scores the canaries with BM25 against
 * the tenant's records in OpenSearch, evaluates the alerts ({@link CollapseAlerts}) and emits the
 * {@code cycle_metrics} row as column-named JSON ({@link CycleRows}); alerts and newly minted canaries go to
 * side outputs. Rows carry event time only, so a replay writes the same rows.
 */
public final class CollapseDetectorFunction extends KeyedProcessFunction<String, StoreOp, String> {

    private static final long serialVersionUID = 1L;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** alert.v1 payloads (docs/schemas/alert.v1.json). */
    public static final OutputTag<String> ALERTS = new OutputTag<>("collapse-alerts", Types.STRING);
    /** canary_queries rows as column-named JSON. */
    public static final OutputTag<String> CANARIES = new OutputTag<>("canary-queries", Types.STRING);

    private final String openSearchUrl;
    private final String index;
    private final CollapseConfig config;
    private final CycleClock clock;

    private transient OpenSearchMemoryStore store;
    private transient ValueState<StoreShape> shape;
    private transient ValueState<String> canaries;
    private transient ListState<String> history;
    private transient ValueState<OpenCycle> open;
    /** The shapes read since the last barrier, by tenant, and which of them changed. */
    private transient Map<String, StoreShape> liveShapes;
    private transient Set<String> changedShapes;

    public CollapseDetectorFunction(String openSearchUrl, String index, CollapseConfig config, Duration quietGap) {
        this.openSearchUrl = openSearchUrl;
        this.index = index;
        this.config = config;
        this.clock = new CycleClock(quietGap);
    }

    @Override
    public void open(OpenContext context) {
        store = new OpenSearchMemoryStore(openSearchUrl, index, RetryPolicy.DEFAULT);
        shape = getRuntimeContext().getState(new ValueStateDescriptor<>("store-shape", StoreShapeSerializer.INSTANCE));
        canaries = getRuntimeContext().getState(new ValueStateDescriptor<>("canary-set", Types.STRING));
        history = getRuntimeContext().getListState(new ListStateDescriptor<>("cycle-history", Types.STRING));
        open = getRuntimeContext().getState(new ValueStateDescriptor<>("open-cycle", TypeInformation.of(OpenCycle.class)));
        liveShapes = new HashMap<>();
        changedShapes = new HashSet<>();
    }

    @Override
    public void processElement(StoreOp op, Context ctx, Collector<String> out) throws Exception {
        OpenCycle cycle = open.value();
        if (op.kind() == StoreOp.Kind.CLOSE_CYCLE) {
            if (cycle != null && cycle.cycleId().equals(op.cycleId())) {
                close(cycle, op.text(), ctx, out);
            }
            return;
        }
        if (cycle != null && !cycle.cycleId().equals(op.cycleId())) {
            close(cycle, CycleClock.BY_CYCLE_ID, ctx, out);
            cycle = null;
        }
        StoreShape current = shapeOf(ctx.getCurrentKey());
        long accepted = 0;
        switch (op.kind()) {
            case UPSERT -> {
                current.upsert(StoreShape.Entry.of(op.id(), op.recordType(), op.text(), op.generation()));
                accepted = 1;
            }
            case DELETE -> accepted = current.delete(op.id()) ? 1 : 0;
            default -> {
            }
        }
        changedShapes.add(ctx.getCurrentKey());
        long writtenAt = op.writtenAt(ctx.timestamp());
        long lastWrite = cycle == null ? writtenAt : Math.max(cycle.lastWriteMillis(), writtenAt);
        long timer = clock.quietCloseAt(lastWrite);
        if (cycle != null && cycle.quietTimer() != timer) {
            ctx.timerService().deleteEventTimeTimer(cycle.quietTimer());
        }
        if (cycle == null || cycle.quietTimer() != timer) {
            ctx.timerService().registerEventTimeTimer(timer);
        }
        open.update(cycle == null
                ? new OpenCycle(op.cycleId(), lastWrite, accepted, op.floorViolations(), op.guardRefusals(), timer)
                : new OpenCycle(cycle.cycleId(), lastWrite, cycle.acceptedActions() + accepted,
                        cycle.mergeFloorViolations() + op.floorViolations(),
                        cycle.generationGuardRefusals() + op.guardRefusals(), timer));
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<String> out) throws Exception {
        OpenCycle cycle = open.value();
        if (cycle != null && cycle.quietTimer() == timestamp) {
            close(cycle, CycleClock.BY_QUIET_GAP, ctx, out);
        }
    }

    private void close(OpenCycle cycle, String reason, Context ctx, Collector<String> out) throws Exception {
        String tenant = ctx.getCurrentKey();
        StoreShape current = shapeOf(tenant);
        CanarySet set = canaries.value() == null ? null : decode(canaries.value());
        if (set == null && current.size() > 0) {
            set = CanarySet.mint(current, config.canaryCount());
            canaries.update(encode(set));
            for (CanarySet.Canary c : set.canaries()) {
                ctx.output(CANARIES, JSON.createObjectNode().put("tenant_id", tenant).put("canary_set_id", set.id())
                        .put("canary_id", c.id()).put("anchor_ref", c.anchorRef()).put("anchor_type", c.anchorType().label())
                        .put("query", c.query()).put("source", "auto")
                        .put("created_at", Instant.ofEpochMilli(cycle.lastWriteMillis()).toString()).toString());
            }
        }
        int[] rankValues = set == null ? new int[0] : CanaryScorer.ranks(store, tenant, set, current, config.k());
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
        List<CycleMetrics> past = new ArrayList<>();
        for (String json : history.get()) {
            past.add(CycleRows.fromJson(json));
        }
        List<CollapseAlerts.Alert> alerts = CollapseAlerts.evaluate(past, row, config);
        row = row.withAlerts(alerts.stream().map(a -> a.kind().label()).toList());
        String rowJson = CycleRows.toJson(row).toString();
        out.collect(rowJson);
        for (CollapseAlerts.Alert a : alerts) {
            ctx.output(ALERTS, JSON.createObjectNode().put("schema", "alert.v1").put("tenant_id", tenant)
                    .put("cycle_id", row.cycleId()).put("kind", a.kind().label()).put("ts", row.ts().toString())
                    .put("canary_set_id", row.canarySetId()).put("detail", a.detail()).toString());
        }
        List<String> kept = new ArrayList<>();
        for (CycleMetrics r : past) {
            if (r.canarySetId().equals(row.canarySetId()) && !r.cycleId().equals(row.cycleId())) {
                kept.add(CycleRows.toJson(r).toString());
            }
        }
        kept.add(rowJson);
        history.update(kept.subList(Math.max(0, kept.size() - config.window()), kept.size()));
        ctx.timerService().deleteEventTimeTimer(cycle.quietTimer());
        open.clear();
    }

    /** The tenant's shape: the one already on the heap this interval, else the one in state (the current key's). */
    private StoreShape shapeOf(String tenant) throws IOException {
        StoreShape live = liveShapes.get(tenant);
        if (live == null) {
            StoreShape stored = shape.value(); // one read: on RocksDB each is a whole-shape deserialization
            live = stored == null ? new StoreShape(config.maxGeneration()) : stored;
            liveShapes.put(tenant, live);
        }
        return live;
    }

    /**
     * Writes the shapes changed since the last call to keyed state, selecting each tenant with {@code setKey},
     * and forgets the heap copies (the next write reads state again, so no object is shared with a snapshot).
     */
    void writeBackShapes(Consumer<String> setKey) throws IOException {
        for (String tenant : changedShapes) {
            setKey.accept(tenant);
            shape.update(liveShapes.get(tenant));
        }
        changedShapes.clear();
        liveShapes.clear();
    }

    static String encode(CanarySet set) {
        ObjectNode o = JSON.createObjectNode().put("id", set.id());
        ArrayNode list = o.putArray("canaries");
        for (CanarySet.Canary c : set.canaries()) {
            list.addObject().put("id", c.id()).put("anchor", c.anchorRef()).put("type", c.anchorType().label())
                    .put("query", c.query());
        }
        return o.toString();
    }

    static CanarySet decode(String json) {
        try {
            JsonNode o = JSON.readTree(json);
            List<CanarySet.Canary> list = new ArrayList<>();
            for (JsonNode c : o.path("canaries")) {
                list.add(new CanarySet.Canary(c.get("id").asText(), c.get("anchor").asText(),
                        RecordType.ofLabel(c.get("type").asText()), c.get("query").asText()));
            }
            return new CanarySet(o.get("id").asText(), list);
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt canary set in state", e);
        }
    }

    @Override
    public void close() {
        if (store != null) {
            store.close();
        }
    }
}
