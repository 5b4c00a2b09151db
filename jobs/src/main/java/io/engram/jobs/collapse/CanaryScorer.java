package io.engram.jobs.collapse;

import io.engram.model.collapse.CanarySet;
import io.engram.model.collapse.StoreShape;
import io.engram.model.collapse.TenantBm25;
import io.engram.store.MemoryStore;
import io.engram.store.RecordIds;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Scores a tenant's canaries against the same OpenSearch index users query (docs/contracts.md §D.5). The caller
 * makes the cycle's writes searchable first (the detector refreshes when it saw writes since its last refresh).
 * One multi-search fetches each canary's {@value #CANDIDATES} best BM25
 * candidates among the tenant's learning records and another counts the tenant's records, all and per query term;
 * the candidates are then ranked by {@link TenantBm25} with the tenant's own statistics (OpenSearch's BM25
 * uses the shard's, which other tenants share), and the rank of each canary's first hit is kept (−1 for a
 * miss). Source refs of hits are resolved to record ids before merge-following.
 */
public final class CanaryScorer {

    /** Candidates per canary: far more than the k that count, so the shard's statistics cannot push a hit out. */
    static final int CANDIDATES = 100;

    private CanaryScorer() {
    }

    /** @param shape the tenant's learning records: their mean length is BM25's avgdl (OpenSearch does not keep it per tenant) */
    public static int[] ranks(MemoryStore store, String tenantId, CanarySet set, StoreShape shape, int k) {
        List<String> queries = set.canaries().stream().map(CanarySet.Canary::query).toList();
        if (queries.isEmpty()) {
            return new int[0]; // a tenant whose records gave no canary (texts of stop words only)
        }
        List<List<MemoryStore.RefHit>> candidates = store.bm25Candidates(tenantId, queries, CANDIDATES,
                StoreShape.LEARNING_TYPES);
        Set<String> terms = new LinkedHashSet<>();
        queries.forEach(q -> terms.addAll(TenantBm25.tokens(q)));
        MemoryStore.TermCounts counts = store.termCounts(tenantId, terms, StoreShape.LEARNING_TYPES);
        TenantBm25.Stats stats = new TenantBm25.Stats(counts.documents(), shape.meanLength(), counts.documentFrequency());
        int[] ranks = new int[queries.size()];
        for (int i = 0; i < ranks.length; i++) {
            List<TenantBm25.Candidate> pool = new ArrayList<>();
            Map<String, List<String>> refs = new HashMap<>();
            for (MemoryStore.RefHit hit : candidates.get(i)) {
                pool.add(new TenantBm25.Candidate(hit.id(), hit.text()));
                refs.put(hit.id(), hit.sourceRefs().stream().map(ref -> RecordIds.resolveRef(tenantId, ref)).toList());
            }
            ranks[i] = CanarySet.rankOfHit(set.canaries().get(i), TenantBm25.topK(queries.get(i), pool, stats, k), refs, k);
        }
        return ranks;
    }
}
