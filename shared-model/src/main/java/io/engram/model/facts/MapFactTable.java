package io.engram.model.facts;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A fact table over maps: the facts of a handful of records, such as one read's results. */
final class MapFactTable implements FactTable {

    private final Map<String, Fact> facts = new HashMap<>();
    private final Map<String, List<String>> slots = new HashMap<>();

    @Override
    public Fact get(String id) {
        return facts.get(id);
    }

    @Override
    public void put(Fact fact) {
        facts.put(fact.id(), fact);
    }

    @Override
    public List<String> slot(String slot) {
        return slots.getOrDefault(slot, List.of());
    }

    @Override
    public void putSlot(String slot, List<String> ids) {
        slots.put(slot, new ArrayList<>(ids));
    }

    @Override
    public Iterable<Fact> all() {
        return facts.values();
    }
}
