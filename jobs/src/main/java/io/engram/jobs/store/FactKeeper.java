package io.engram.jobs.store;

import io.engram.jobs.ingest.ForgetEvent;
import io.engram.jobs.store.StoreChange.Upsert;
import io.engram.model.facts.Fact;
import io.engram.model.facts.FactTable;
import io.engram.model.facts.Retention;
import io.engram.model.facts.Supersession;
import io.engram.model.facts.Supersession.Link;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeutils.base.ListSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.streaming.api.operators.InternalTimerService;

/**
 * The store writer's keyed state of one tenant's memory facts and of what expires when (docs/algorithms.md,
 * "Supersession, validity and expiry"): the facts and slots {@link Supersession} decides over, each record's
 * {@code expires_at}, and event-time timers, one per expiring record (namespace: its id) and one per minute of
 * retention sweeps of a type (namespace {@code sweep/TYPE}). The rules are shared-model's; this holds state.
 */
final class FactKeeper implements FactTable {

    /** The namespace prefix of sweep timers; a NUL starts no record id. */
    private static final String SWEEP = "\u0000sweep/";

    private final MapState<String, Fact> facts;
    private final MapState<String, List<String>> slots;
    private final MapState<String, Long> expiries;
    private final InternalTimerService<String> timers;
    /** How long after its time the wall clock applies an expiry or sweep event time has not reached; null: never. */
    private final Duration wallClockGrace;
    /** The sweeps already applied, by type, at the time of their last one (so the other clock's timer skips it). */
    private final MapState<String, Long> swept;

    FactKeeper(KeyedStateStore states, InternalTimerService<String> timers, Duration wallClockGrace) {
        this.facts = states.getMapState(new MapStateDescriptor<>("memory-facts", StringSerializer.INSTANCE,
                FactSerializer.INSTANCE));
        this.slots = states.getMapState(new MapStateDescriptor<>("memory-slots", StringSerializer.INSTANCE,
                new ListSerializer<>(StringSerializer.INSTANCE)));
        this.expiries = states.getMapState(new MapStateDescriptor<>("expires-at", StringSerializer.INSTANCE,
                LongSerializer.INSTANCE));
        this.timers = timers;
        this.wallClockGrace = wallClockGrace;
        this.swept = states.getMapState(new MapStateDescriptor<>("swept-at", StringSerializer.INSTANCE,
                LongSerializer.INSTANCE));
    }

    @Override
    public Fact get(String id) throws Exception {
        return facts.get(id);
    }

    /** Whether the memory {@code id} is stored, as far as its facts say (a memory without key or edges has none). */
    boolean stored(String id) throws Exception {
        Fact fact = facts.get(id);
        return fact != null && fact.present() && !fact.forgotten();
    }

    @Override
    public void put(Fact fact) throws Exception {
        facts.put(fact.id(), fact);
    }

    @Override
    public List<String> slot(String slot) throws Exception {
        List<String> ids = slots.get(slot);
        return ids == null ? List.of() : ids;
    }

    @Override
    public void putSlot(String slot, List<String> ids) throws Exception {
        slots.put(slot, new ArrayList<>(ids));
    }

    @Override
    public Iterable<Fact> all() throws Exception {
        return facts.values();
    }

    /**
     * A memory's upsert as it is written, what superseded it stamped on it, then the marks of the stored memories
     * whose superseder it changed; edges refused because they would close a cycle go to {@code refused}.
     */
    List<StoreChange> arrive(Upsert upsert, List<String> refused) throws Exception {
        MemoryRecord r = upsert.record();
        if (!Supersession.FACT_TYPES.contains(r.type()) || (r.key() == null && r.supersedes().isEmpty() && facts.get(r.id()) == null)) {
            return List.of(upsert); // no slot, no edge, never named: nothing to decide
        }
        Supersession.Outcome outcome = Supersession.arrive(this, r, r.supersedes());
        refused.addAll(outcome.refused());
        Link own = outcome.own();
        List<StoreChange> changes = new ArrayList<>();
        changes.add(new Upsert(r.withSupersededBy(own == null ? null : own.by(),
                own == null ? null : Instant.ofEpochMilli(own.at())), upsert.cycleId()));
        for (Map.Entry<String, Link> changed : outcome.changed().entrySet()) {
            Link link = changed.getValue();
            changes.add(new StoreChange.Supersede(r.tenantId(), changed.getKey(), link == null ? null : link.by(),
                    link == null ? null : link.at(), upsert.tsMillis()));
        }
        // a target known only as named may be stored all the same: of a memory that arrived without key or edges no
        // fact was kept (the shortcut above). Its mark goes to the store, which leaves an absent memory absent
        for (String target : r.supersedes()) {
            Fact named = facts.get(target);
            Link link = named == null ? null : named.supersededBy();
            if (link != null && !named.present() && !named.forgotten() && !outcome.changed().containsKey(target)) {
                changes.add(new StoreChange.Supersede(r.tenantId(), target, link.by(), link.at(), upsert.tsMillis()));
            }
        }
        return changes;
    }

    /**
     * The memories a forget covers stay forgotten: their marks are never written again, their edges stay. A
     * tenant's deletion also drops its pending expiries: the records they would expire are gone, and one firing
     * later would record a forget of nothing and delete what names its record by then. Sweeps stay: they find
     * nothing of what was deleted, and still age out what the tenant writes afterwards.
     */
    void forgotten(ForgetEvent forget) throws Exception {
        if (forget.scope() == ForgetScope.MEMORY) {
            Supersession.forget(this, forget.target(), null);
        } else if (forget.scope() == ForgetScope.USER) {
            Supersession.forget(this, null, forget.target());
        } else if (forget.scope() == ForgetScope.TENANT) {
            Supersession.forgetAll(this);
            dropExpiries();
        }
    }

    /** Drops every pending expiry of the current tenant, with its timers of both clocks. */
    private void dropExpiries() throws Exception {
        List<Map.Entry<String, Long>> pending = new ArrayList<>(); // read whole before the map state is changed
        expiries.entries().forEach(e -> pending.add(Map.entry(e.getKey(), e.getValue())));
        for (Map.Entry<String, Long> expiry : pending) {
            unregister(expiry.getKey(), expiry.getValue());
            expiries.remove(expiry.getKey());
        }
    }

    /** Sets the timers of a written record: its {@code expires_at} (again, if it moved), its type's next sweep. */
    void schedule(MemoryRecord r, Retention retention) throws Exception {
        Long before = expiries.get(r.id());
        Long expires = r.expiresAt() == null ? null : r.expiresAt().toEpochMilli();
        if (before != null && !before.equals(expires)) {
            unregister(r.id(), before);
            expiries.remove(r.id());
        }
        if (expires != null) {
            expiries.put(r.id(), expires);
            register(r.id(), expires);
        }
        Duration maxAge = retention.maxAge(r.type());
        if (maxAge != null) {
            register(SWEEP + r.type().label(), Retention.sweepAt(r.ts().toEpochMilli(), maxAge));
        }
    }

    /** A timer at {@code at} in event time and, with a grace, one that long after it by the wall clock. */
    private void register(String namespace, long at) {
        timers.registerEventTimeTimer(namespace, at);
        if (wallClockGrace != null) {
            timers.registerProcessingTimeTimer(namespace, at + wallClockGrace.toMillis());
        }
    }

    /** Deletes the timers {@link #register} set. */
    private void unregister(String namespace, long at) {
        timers.deleteEventTimeTimer(namespace, at);
        if (wallClockGrace != null) {
            timers.deleteProcessingTimeTimer(namespace, at + wallClockGrace.toMillis());
        }
    }

    /**
     * What a timer of the tenant's at {@code at} does: a retention sweep of its type, or the forget of an expired
     * record (a forget's guarantees and audit row); null for an expiry moved since, or a retention since removed.
     */
    StoreChange fired(String tenantId, String namespace, long at, Retention retention) throws Exception {
        if (namespace.startsWith(SWEEP)) {
            RecordType type = RecordType.ofLabel(namespace.substring(SWEEP.length()));
            Duration maxAge = retention.maxAge(type);
            Long last = swept.get(namespace);
            if (maxAge == null || (last != null && last >= at)) {
                return null; // no retention any more, or swept this far by the other clock's timer
            }
            swept.put(namespace, at);
            return new StoreChange.Sweep(tenantId, type, Retention.cutoff(at, maxAge), at);
        }
        Long expires = expiries.get(namespace);
        if (expires == null || expires != at) {
            return null;
        }
        expiries.remove(namespace);
        return new StoreChange.Forget(tenantId, "expiry/" + namespace + "@" + Instant.ofEpochMilli(at), ForgetScope.MEMORY,
                namespace, at);
    }
}
