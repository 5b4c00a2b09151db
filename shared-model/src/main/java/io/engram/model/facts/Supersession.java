package io.engram.model.facts;

import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What supersedes what among a tenant's memories (docs/algorithms.md, "Supersession"). Two kinds of edge: a
 * memory's explicit {@code supersedes}, and within a slot (the same user and key) each memory superseded by the
 * next one in {@code ts} order (then by id). A memory is superseded by the earliest of its superseders, from that
 * one's start ({@code valid_from}, else {@code ts}). An edge that would close a cycle is refused: the memories stay,
 * the edge is not applied. A forgotten memory keeps its edges (what it replaced stays replaced) and is never
 * written again.
 */
public final class Supersession {

    /** Longest chain followed when looking for a cycle; a longer one is treated as closing one. */
    static final int MAX_CHAIN = 10_000;

    /** The memory that supersedes another, and from when (epoch millis). */
    public record Link(String by, long at) {

        private static final Comparator<Link> ORDER = Comparator.comparingLong(Link::at).thenComparing(Link::by);

        /** The earlier of two links (either may be null); between links at the same time, the smaller id. */
        public static Link earliest(Link a, Link b) {
            if (a == null || b == null) {
                return a == null ? b : a;
            }
            return ORDER.compare(a, b) <= 0 ? a : b;
        }
    }

    /** A memory's place in a slot: its id, its {@code ts} and its start ({@code valid_from}, else {@code ts}). */
    public record Member(String id, long ts, long start) {
    }

    /** The order of a slot: by {@code ts}, then by id. */
    public static final Comparator<Member> SLOT_ORDER = Comparator.comparingLong(Member::ts).thenComparing(Member::id);

    /**
     * What an arriving memory changed: its own superseder (null for none), the other stored memories whose
     * superseder changed (id → new link, null when none supersedes it any more), and the explicit edges refused
     * because they would have closed a cycle (or named the memory itself).
     */
    public record Outcome(Link own, Map<String, Link> changed, List<String> refused) {
    }

    /** The record types that have facts: a gateway's memories, lessons and knowledge. */
    public static final Set<RecordType> FACT_TYPES = Set.of(RecordType.MEMORY, RecordType.LESSON, RecordType.KNOWLEDGE);

    private final FactTable table;
    /** What supersedes each memory touched by the arrival, as it was before it. */
    private final Map<String, Link> before = new HashMap<>();
    private final Set<String> touched = new HashSet<>();

    private Supersession(FactTable table) {
        this.table = table;
    }

    /**
     * The records of {@code found} that none of them supersedes at {@code at}, in their order. The writer stores a
     * new version and then marks what it supersedes; a read between the two finds both, current as far as the store
     * says. Applying the rules to what the read found hides the older one already, so no read returns two versions
     * of one fact (docs/contracts.md, "Supersession, validity and expiry").
     */
    public static List<MemoryRecord> holding(List<MemoryRecord> found, Instant at) {
        List<MemoryRecord> withFacts = new ArrayList<>();
        for (MemoryRecord r : found) {
            if (FACT_TYPES.contains(r.type()) && (r.key() != null || !r.supersedes().isEmpty())) {
                withFacts.add(r);
            }
        }
        if (withFacts.isEmpty()) {
            return found;
        }
        MapFactTable table = new MapFactTable();
        withFacts.sort(Comparator.comparing(MemoryRecord::ts).thenComparing(MemoryRecord::id));
        try {
            for (MemoryRecord r : withFacts) {
                arrive(table, r, r.supersedes());
            }
        } catch (Exception e) {
            throw new IllegalStateException("a map of facts does not fail", e);
        }
        List<MemoryRecord> holding = new ArrayList<>(found.size());
        for (MemoryRecord r : found) {
            Fact fact = table.get(r.id());
            Link by = fact == null ? null : fact.supersededBy();
            if (by == null || by.at() > at.toEpochMilli()) {
                holding.add(r);
            }
        }
        return holding;
    }

    /**
     * Applies the arrival of a stored memory {@code r}, superseding the store ids {@code supersedes} explicitly, to
     * the tenant's {@code table}.
     */
    public static Outcome arrive(FactTable table, MemoryRecord r, List<String> supersedes) throws Exception {
        return new Supersession(table).arrive(r, supersedes);
    }

    private Outcome arrive(MemoryRecord r, List<String> supersedes) throws Exception {
        Fact old = read(r.id());
        Fact fact = old == null ? Fact.of(r) : old.storedAgainAs(Fact.of(r));
        table.put(fact);
        if (old != null && old.slot() != null && !old.slot().equals(fact.slot())) {
            List<String> left = new ArrayList<>(table.slot(old.slot()));
            left.remove(r.id());
            relink(old.slot(), left);
        }
        if (fact.slot() != null) {
            List<String> members = new ArrayList<>(table.slot(fact.slot()));
            if (!members.contains(r.id())) {
                members.add(r.id());
            }
            relink(fact.slot(), members);
        }
        List<String> refused = new ArrayList<>();
        for (String target : supersedes) {
            if (!supersedeExplicitly(r.id(), fact.start(), target)) {
                refused.add(target);
            }
        }
        Map<String, Link> changed = new LinkedHashMap<>();
        for (String id : touched) {
            Fact now = table.get(id);
            if (!id.equals(r.id()) && now.present() && !now.forgotten()
                    && !Objects.equals(before.get(id), now.supersededBy())) {
                changed.put(id, now.supersededBy());
            }
        }
        return new Outcome(table.get(r.id()).supersededBy(), changed, List.copyOf(refused));
    }

    /** Reads a fact, remembering what superseded it before the arrival. */
    private Fact read(String id) throws Exception {
        Fact fact = table.get(id);
        if (touched.add(id)) {
            before.put(id, fact == null ? null : fact.supersededBy());
        }
        return fact;
    }

    /** Sets the slot links of a slot's members, refusing one that would close a cycle. */
    private void relink(String slot, List<String> ids) throws Exception {
        List<Member> members = new ArrayList<>();
        for (String id : ids) {
            members.add(read(id).member());
        }
        Map<String, Link> links = slotLinks(members);
        for (String id : ids) {
            Link link = links.get(id);
            Fact fact = table.get(id);
            table.put(fact.withSlot(link == null || closesCycle(link.by(), id) ? null : link));
        }
        table.putSlot(slot, ids);
    }

    private boolean supersedeExplicitly(String by, long start, String target) throws Exception {
        if (closesCycle(by, target)) {
            return false;
        }
        Fact fact = read(target);
        fact = fact == null ? Fact.named(target) : fact;
        table.put(fact.withExplicit(Link.earliest(fact.explicitBy(), new Link(by, start))));
        return true;
    }

    /**
     * The slot links of a slot's members: each member's id mapped to the link of the next member in
     * {@link #SLOT_ORDER}, from the next one's start; the newest member has none. {@code members} may be in any order.
     */
    public static Map<String, Link> slotLinks(List<Member> members) {
        List<Member> ordered = new ArrayList<>(members);
        ordered.sort(SLOT_ORDER);
        Map<String, Link> links = new LinkedHashMap<>();
        for (int i = 0; i + 1 < ordered.size(); i++) {
            Member next = ordered.get(i + 1);
            links.put(ordered.get(i).id(), new Link(next.id(), next.start()));
        }
        return links;
    }

    /**
     * Whether the edge "{@code by} supersedes {@code target}" would close a cycle: whether following what
     * supersedes what from {@code by} reaches {@code target}. A memory superseding itself closes one.
     */
    private boolean closesCycle(String by, String target) throws Exception {
        Set<String> seen = new HashSet<>();
        for (String at = by; at != null; ) {
            if (at.equals(target) || !seen.add(at) || seen.size() > MAX_CHAIN) {
                return true;
            }
            Fact fact = table.get(at);
            Link next = fact == null ? null : fact.supersededBy();
            at = next == null ? null : next.by();
        }
        return false;
    }

    /**
     * Marks the memories a forget covers as forgotten in the tenant's {@code table}: the memory {@code id}, or with
     * {@code userId} every memory of that user. Their edges stay.
     */
    public static void forget(FactTable table, String id, String userId) throws Exception {
        if (id != null) {
            Fact fact = table.get(id);
            if (fact != null) {
                table.put(fact.asForgotten());
            }
            return;
        }
        forgetWhere(table, fact -> userId.equals(fact.userId()));
    }

    /** Marks every memory of the tenant's {@code table} as forgotten (the tenant's deletion). Their edges stay. */
    public static void forgetAll(FactTable table) throws Exception {
        forgetWhere(table, fact -> true);
    }

    private static void forgetWhere(FactTable table, Predicate<Fact> covered) throws Exception {
        List<Fact> marked = new ArrayList<>(); // read first: a table of keyed state is not written while it is read
        for (Fact fact : table.all()) {
            if (covered.test(fact)) {
                marked.add(fact);
            }
        }
        for (Fact fact : marked) {
            table.put(fact.asForgotten());
        }
    }
}
