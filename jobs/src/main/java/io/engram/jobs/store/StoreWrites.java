package io.engram.jobs.store;

import io.engram.jobs.store.StoreChange.Delete;
import io.engram.jobs.store.StoreChange.MergeSignals;
import io.engram.jobs.store.StoreChange.Supersede;
import io.engram.jobs.store.StoreChange.Upsert;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.store.MemoryWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;

/**
 * A batch's writes in order: a run of upserts is one bulk request, a run of one tenant's deletes another, and so
 * is a run of one tenant's superseded marks; any other change (a forget, a document replacement, a sweep) acts
 * after what precedes it is written ({@link #flush} first).
 */
final class StoreWrites {

    private final MemoryWriter store;
    private final Counter indexed;
    private final Counter deleted;
    private final Counter superseded;
    private final Histogram bulkMillis;
    private final List<MemoryRecord> upserts = new ArrayList<>();
    private final List<String> deletes = new ArrayList<>();
    private final List<MemoryWriter.Superseded> marks = new ArrayList<>();
    /** What the pending run is: upserts, or one tenant's deletes or marks; null when nothing is pending. */
    private String run;
    private String tenantOfRun;

    StoreWrites(MemoryWriter store, Counter indexed, Counter deleted, Counter superseded, Histogram bulkMillis) {
        this.store = store;
        this.indexed = indexed;
        this.deleted = deleted;
        this.superseded = superseded;
        this.bulkMillis = bulkMillis;
    }

    void add(StoreChange change) {
        if (change instanceof MergeSignals || change instanceof StoreChange.DocumentVersion) {
            return; // counted by the detector, or told to the change feed: not written
        }
        String kind = change instanceof Upsert ? "upserts" : change instanceof Delete ? "deletes"
                : change instanceof Supersede ? "marks" : null;
        String tenant = change instanceof Upsert ? null : change.tenantId();
        if (kind == null || !kind.equals(run) || !Objects.equals(tenant, tenantOfRun)) {
            flush();
        }
        run = kind;
        tenantOfRun = tenant;
        if (change instanceof Upsert u) {
            upserts.add(u.record());
        } else if (change instanceof Delete d) {
            deletes.add(d.id());
        } else if (change instanceof Supersede s) {
            marks.add(new MemoryWriter.Superseded(s.id(), s.by(), s.atMillis() == null ? null
                    : Instant.ofEpochMilli(s.atMillis())));
        }
    }

    /** Writes the pending run. */
    void flush() {
        long start = System.nanoTime();
        if (!upserts.isEmpty()) {
            store.upsert(upserts);
            written(indexed, upserts.size(), start);
            upserts.clear();
        } else if (!deletes.isEmpty()) {
            store.delete(tenantOfRun, deletes);
            written(deleted, deletes.size(), start);
            deletes.clear();
        } else if (!marks.isEmpty()) {
            store.supersede(tenantOfRun, marks);
            written(superseded, marks.size(), start);
            marks.clear();
        }
        run = null;
        tenantOfRun = null;
    }

    private void written(Counter counter, int documents, long startNanos) {
        bulkMillis.update((System.nanoTime() - startNanos) / 1_000_000);
        counter.inc(documents);
    }
}
