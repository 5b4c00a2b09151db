package io.engram.retrieval;

import io.engram.model.retrieval.AgentScope;
import io.engram.model.retrieval.ContextItem;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.store.MemoryReader.Stamp;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The hard and soft rules of recently asking tenants. Rules change only when an agent document does, so an entry
 * is good for as long as the {@link Stamp} of the tenant's rule records is the one it was read under; the read
 * path asks for the stamp in the same round trip as its other reads and re-reads the rules only when it moved.
 * Bounded by the number of rules held: the tenants asked least recently go first.
 */
final class RuleCache {

    /** A tenant's rules, every agent's, each tier in document order (by agent, path and position). */
    record Rules(List<MemoryRecord> hard, List<MemoryRecord> soft) {
        int size() {
            return hard.size() + soft.size();
        }

        /** The hard rules {@code agents} sees, as context items. */
        List<ContextItem> hard(AgentScope agents) {
            return seen(hard, agents);
        }

        /** The soft rules {@code agents} sees, as context items. */
        List<ContextItem> soft(AgentScope agents) {
            return seen(soft, agents);
        }

        private static List<ContextItem> seen(List<MemoryRecord> rules, AgentScope agents) {
            return rules.stream().filter(r -> agents.sees(r.agentId())).map(r -> ContextItem.of(r, 0)).toList();
        }
    }

    private record Entry(Stamp stamp, Rules rules) {
    }

    private final int maxRules;
    private final Map<String, Entry> byTenant = new LinkedHashMap<>(16, 0.75f, true);
    private int held;

    RuleCache(int maxRules) {
        this.maxRules = maxRules;
    }

    /** The tenant's rules if they were read under this stamp. */
    synchronized Optional<Rules> get(String tenantId, Stamp stamp) {
        Entry entry = byTenant.get(tenantId);
        return entry != null && entry.stamp().equals(stamp) ? Optional.of(entry.rules()) : Optional.empty();
    }

    synchronized void put(String tenantId, Stamp stamp, Rules rules) {
        Entry previous = byTenant.put(tenantId, new Entry(stamp, rules));
        held += rules.size() - (previous == null ? 0 : previous.rules().size());
        Iterator<Map.Entry<String, Entry>> eldest = byTenant.entrySet().iterator();
        while (held > maxRules && eldest.hasNext()) {
            Map.Entry<String, Entry> e = eldest.next();
            if (!e.getKey().equals(tenantId)) { // a tenant whose rules alone exceed the bound still gets them once
                held -= e.getValue().rules().size();
                eldest.remove();
            }
        }
    }

    /** What the cache holds now: tenants and their rules. */
    synchronized ContextService.CachedRules held() {
        return new ContextService.CachedRules(byTenant.size(), held);
    }

    synchronized int tenants() {
        return byTenant.size();
    }
}
