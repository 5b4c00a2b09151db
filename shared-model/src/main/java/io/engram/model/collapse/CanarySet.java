package io.engram.model.collapse;

import io.engram.model.retrieval.RecordType;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A tenant's frozen canary queries (docs/contracts.md §D.5). Minted once from the store shape at the first
 * qualifying cycle: entries are taken in the shape's sample order (FNV of the record id, so the choice does not
 * depend on write order), an equal quota per learning type present, then backfilled in the same order. Each
 * canary's query is the first {@value #QUERY_TERMS} distinct words (four letters or more) of its anchor's text.
 * The set id is derived from the anchors, so the same store mints the same set; trends never compare rows of
 * different sets.
 */
public record CanarySet(String id, List<Canary> canaries) {

    static final int QUERY_TERMS = 8;
    /** Words shorter than this are left out of canary queries (mostly stop words). */
    static final int MIN_QUERY_TERM_LENGTH = 4;

    /** One canary: the record it must find and the BM25 query that should find it. */
    public record Canary(String id, String anchorRef, RecordType anchorType, String query) {
    }

    public CanarySet {
        canaries = List.copyOf(canaries);
    }

    public static CanarySet mint(StoreShape shape, int count) {
        Map<RecordType, List<StoreShape.Entry>> byType = new EnumMap<>(RecordType.class);
        List<StoreShape.Entry> usable = new ArrayList<>();
        for (StoreShape.Entry e : shape.inSampleOrder()) {
            if (!e.canaryQuery().isEmpty()) {
                usable.add(e);
                byType.computeIfAbsent(e.type(), t -> new ArrayList<>()).add(e);
            }
        }
        int target = Math.min(count, usable.size());
        Set<StoreShape.Entry> chosen = new LinkedHashSet<>();
        if (!byType.isEmpty()) {
            int quota = target / byType.size();
            byType.values().forEach(entries -> chosen.addAll(entries.subList(0, Math.min(quota, entries.size()))));
        }
        for (StoreShape.Entry e : usable) {
            if (chosen.size() >= target) {
                break;
            }
            chosen.add(e);
        }
        List<Canary> canaries = new ArrayList<>();
        StringBuilder anchors = new StringBuilder();
        for (StoreShape.Entry e : chosen) {
            canaries.add(new Canary(String.format(Locale.ROOT, "c%03d", canaries.size()), e.id(), e.type(),
                    e.canaryQuery()));
            anchors.append(e.id()).append('\n');
        }
        return new CanarySet("cs-" + NormHash.of(anchors.toString()), canaries);
    }

    /** The canary query of a text: its first distinct words of four letters or more, lower-cased. */
    public static String queryOf(String text) {
        Set<String> terms = new LinkedHashSet<>();
        for (String raw : TenantBm25.tokens(text)) {
            if (raw.length() >= MIN_QUERY_TERM_LENGTH) {
                terms.add(raw);
                if (terms.size() == QUERY_TERMS) {
                    break;
                }
            }
        }
        return String.join(" ", terms);
    }

    /**
     * Each canary's rank ({@link TenantBm25}'s top {@code k} for its query over the records the shape holds), in
     * the set's order.
     */
    public int[] ranks(StoreShape shape, int k) {
        TenantBm25 bm25 = TenantBm25.over(shape, canaries.stream().map(Canary::query).toList());
        int[] ranks = new int[canaries.size()];
        for (int i = 0; i < ranks.length; i++) {
            ranks[i] = rankOfHit(canaries.get(i), bm25.topK(canaries.get(i).query(), k), k);
        }
        return ranks;
    }

    /**
     * The 0-based rank of the canary's first hit in a BM25 result list, or −1: a hit is the anchor itself or an
     * entry whose source refs name the anchor (one level of merge-following, docs/contracts.md §D.5).
     */
    static int rankOfHit(Canary canary, List<StoreShape.Entry> results, int k) {
        List<String> ids = results.stream().map(StoreShape.Entry::id).toList();
        return RankMetrics.firstRelevantRank(ids, id -> id.equals(canary.anchorRef())
                || results.get(ids.indexOf(id)).refersTo(canary.anchorRef()), k);
    }

    /** The anchor ids (for tests and the CLI). */
    public Set<String> anchors() {
        Set<String> ids = new HashSet<>();
        canaries.forEach(c -> ids.add(c.anchorRef()));
        return ids;
    }
}
