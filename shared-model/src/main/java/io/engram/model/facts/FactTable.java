package io.engram.model.facts;

import java.util.List;

/** A tenant's facts by memory id and its slots' members, as the writer's keyed state holds them. */
public interface FactTable {

    /** The fact of a memory id, or null. */
    Fact get(String id) throws Exception;

    void put(Fact fact) throws Exception;

    /** The ids of a slot's members (empty for none). */
    List<String> slot(String slot) throws Exception;

    void putSlot(String slot, List<String> ids) throws Exception;

    /** Every fact of the tenant. */
    Iterable<Fact> all() throws Exception;
}
