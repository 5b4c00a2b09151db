package io.engram.jobs.collapse;

import io.engram.model.collapse.StoreShape;
import java.io.IOException;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The store shapes the detector holds on the heap between checkpoint barriers, by tenant, and which of them
 * changed. Bounded by the records they hold together: past the bound the tenants touched least recently are
 * written back to keyed state and dropped, so the heap holds at most {@code maxRecords} entries or one tenant's
 * shape, whichever is larger, however many tenants write between two barriers.
 */
final class LiveShapes {

    /** Writes one shape back to keyed state. */
    @FunctionalInterface
    interface WriteBack {
        void write(String tenant, StoreShape shape) throws IOException;
    }

    private final long maxRecords;
    private final Map<String, StoreShape> byTenant = new LinkedHashMap<>(16, 0.75f, true);
    private final Set<String> changed = new HashSet<>();
    /** Read by the metrics reporter's thread (a gauge). */
    private volatile long held;

    LiveShapes(long maxRecords) {
        this.maxRecords = maxRecords;
    }

    /** The tenant's shape if it is held (it becomes the most recently used), else null. */
    StoreShape get(String tenant) {
        return byTenant.get(tenant);
    }

    /** Holds a shape just read from state. */
    void hold(String tenant, StoreShape shape) {
        byTenant.put(tenant, shape);
        held += shape.size();
    }

    /** Marks a held shape as changed, its size having moved by {@code sizeDelta}. */
    void changed(String tenant, int sizeDelta) {
        changed.add(tenant);
        held += sizeDelta;
    }

    /** The entries of all shapes held. */
    long heldRecords() {
        return held;
    }

    /**
     * Past the bound, writes back the changed shapes of the tenants touched least recently and drops them, never
     * {@code keep}'s (the tenant being worked on), until the held entries are within the bound.
     */
    void evict(String keep, WriteBack writeBack) throws IOException {
        Iterator<Map.Entry<String, StoreShape>> eldest = byTenant.entrySet().iterator();
        while (held > maxRecords && eldest.hasNext()) {
            Map.Entry<String, StoreShape> e = eldest.next();
            if (!e.getKey().equals(keep)) {
                drop(e.getKey(), e.getValue(), writeBack);
                eldest.remove();
            }
        }
    }

    /** Writes back every changed shape and drops them all (at a barrier: no object stays shared with a snapshot). */
    void writeBackAll(WriteBack writeBack) throws IOException {
        for (Map.Entry<String, StoreShape> e : byTenant.entrySet()) {
            drop(e.getKey(), e.getValue(), writeBack);
        }
        byTenant.clear();
    }

    private void drop(String tenant, StoreShape shape, WriteBack writeBack) throws IOException {
        if (changed.remove(tenant)) {
            writeBack.write(tenant, shape);
        }
        held -= shape.size();
    }
}
