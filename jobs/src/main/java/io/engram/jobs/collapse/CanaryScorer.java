package io.engram.jobs.collapse;

import io.engram.jobs.store.OpenSearchMemoryStore;
import io.engram.jobs.store.RecordIds;
import io.engram.model.collapse.CanarySet;
import io.engram.model.collapse.StoreShape;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Scores a tenant's canaries against the same OpenSearch index users query (BRIEF.md §D): after a refresh, so
 * every write so far is searchable, the canaries' BM25 queries run over the tenant's learning records in one
 * multi-search and the rank of each canary's first hit is kept (−1 for a miss). Source refs of hits are resolved to record ids before
 * merge-following.
 */
public final class CanaryScorer {

    private CanaryScorer() {
    }

    public static int[] ranks(OpenSearchMemoryStore store, String tenantId, CanarySet set, int k) {
        store.refresh();
        List<List<OpenSearchMemoryStore.RefHit>> results = store.bm25Refs(tenantId,
                set.canaries().stream().map(CanarySet.Canary::query).toList(), k, StoreShape.LEARNING_TYPES);
        int[] ranks = new int[set.canaries().size()];
        for (int i = 0; i < ranks.length; i++) {
            List<String> ids = new ArrayList<>();
            Map<String, List<String>> refs = new HashMap<>();
            for (OpenSearchMemoryStore.RefHit hit : results.get(i)) {
                ids.add(hit.id());
                refs.put(hit.id(), hit.sourceRefs().stream().map(ref -> RecordIds.resolveRef(tenantId, ref)).toList());
            }
            ranks[i] = CanarySet.rankOfHit(set.canaries().get(i), ids, refs, k);
        }
        return ranks;
    }
}
