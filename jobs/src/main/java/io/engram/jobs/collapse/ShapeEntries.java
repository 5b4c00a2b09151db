package io.engram.jobs.collapse;

import io.engram.model.collapse.StoreShape;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.MemoryReader;
import io.engram.store.MemoryStore;
import io.engram.store.RecordIds;
import java.util.List;

/** The detector's shape entries of records, and the words of a shape of the first state format read back. */
final class ShapeEntries {

    private ShapeEntries() {
    }

    /**
     * Gives the entries of a shape restored from the first state format their words and source refs, from the
     * texts OpenSearch holds (once: the shape is written back in the current format). A record OpenSearch no
     * longer holds gets no words, so it matches no canary and is not asked for again. Returns whether any entry
     * was read back.
     */
    static boolean readBackTexts(MemoryStore store, String tenant, StoreShape restored) {
        List<String> ids = restored.idsWithoutTerms();
        if (ids.isEmpty()) {
            return false;
        }
        store.refresh(); // the restored writes were acknowledged; a search finds them once refreshed
        for (int from = 0; from < ids.size(); from += MemoryReader.MAX_IDS_PER_GET) {
            for (MemoryRecord r : store.get(tenant, ids.subList(from, Math.min(ids.size(), from + MemoryReader.MAX_IDS_PER_GET)))) {
                StoreShape.Entry old = restored.get(r.id());
                restored.upsert(of(tenant, r.id(), old.type(), r.text(), old.generation(), r.sourceRefs()));
            }
        }
        for (String gone : restored.idsWithoutTerms()) {
            restored.upsert(restored.get(gone).withoutWords());
        }
        return true;
    }

    /** A record's entry: its words, and the store ids its source refs name. */
    static StoreShape.Entry of(String tenant, String id, RecordType type, String text, int generation,
                               List<String> sourceRefs) {
        return StoreShape.Entry.of(id, type, text, generation,
                sourceRefs.stream().map(ref -> RecordIds.resolveRef(tenant, ref)).toList());
    }
}
