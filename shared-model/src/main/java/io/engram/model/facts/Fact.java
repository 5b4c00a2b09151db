package io.engram.model.facts;

import io.engram.model.facts.Supersession.Link;
import io.engram.model.retrieval.MemoryRecord;

/**
 * What the writer keeps of a memory for supersession: its slot (user and key), its {@code ts} and start, what
 * supersedes it explicitly and within its slot, whether it was stored ({@code present}; a memory only named by
 * another's {@code supersedes} is not) and whether it was forgotten.
 */
public record Fact(String id, String userId, String key, long ts, long start, Link explicitBy, Link slotBy,
                   boolean present, boolean forgotten) {

    /** A stored memory's fact, without links yet. */
    public static Fact of(MemoryRecord r) {
        long ts = r.ts().toEpochMilli();
        return new Fact(r.id(), r.userId(), r.key(), ts, r.validFrom() != null ? r.validFrom().toEpochMilli() : ts, null,
                null, true, false);
    }

    /** A memory named by another's {@code supersedes} before it was stored (or never stored). */
    public static Fact named(String id) {
        return new Fact(id, null, null, 0, 0, null, null, false, false);
    }

    /** The slot the memory is in, or null without a key: its user (none for none) and key. */
    public String slot() {
        return key == null ? null : slotOf(userId, key);
    }

    public static String slotOf(String userId, String key) {
        return (userId == null ? "" : userId) + '\u0000' + key;
    }

    /** What supersedes the memory: the earlier of its explicit and its slot superseder. */
    public Link supersededBy() {
        return Link.earliest(explicitBy, slotBy);
    }

    public Fact withExplicit(Link link) {
        return new Fact(id, userId, key, ts, start, link, slotBy, present, forgotten);
    }

    public Fact withSlot(Link link) {
        return new Fact(id, userId, key, ts, start, explicitBy, link, present, forgotten);
    }

    /**
     * A memory stored again ({@code stored}), keeping what this fact knew supersedes it explicitly. A write a forget
     * covers never gets here (the writer drops it), so this one is written after the forget: stored, not forgotten.
     */
    public Fact storedAgainAs(Fact stored) {
        return new Fact(id, stored.userId, stored.key, stored.ts, stored.start, explicitBy, null, true, false);
    }

    public Fact asForgotten() {
        return new Fact(id, userId, key, ts, start, explicitBy, slotBy, present, true);
    }

    public Supersession.Member member() {
        return new Supersession.Member(id, ts, start);
    }
}
