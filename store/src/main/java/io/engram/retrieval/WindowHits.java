package io.engram.retrieval;

import io.engram.model.retrieval.ContextItem;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.MemoryReader;
import io.engram.store.RecordIds;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** What a context does with the windows of turns it retrieved ({@link io.engram.model.retrieval.TurnWindows}). */
final class WindowHits {

    /** The turns of windows read in one request. */
    private static final int MAX_TURNS_PER_READ = 500;

    private WindowHits() {
    }

    /** {@code types} and windows. */
    static Set<RecordType> withWindows(Set<RecordType> types) {
        Set<RecordType> searched = EnumSet.of(RecordType.WINDOW);
        searched.addAll(types);
        return Set.copyOf(searched);
    }

    /**
     * Each window among the candidates gives way to its turns, scored as the window unless they score higher on
     * their own: a turn is a candidate once, however many windows hold it.
     */
    static void open(MemoryReader store, String tenantId, List<HybridRetriever.Result> hits,
                     Map<String, ContextItem> candidates) {
        Map<String, Double> turnScores = new LinkedHashMap<>();
        for (HybridRetriever.Result h : hits) {
            if (h.record().type() == RecordType.WINDOW && candidates.remove(h.record().id()) != null) {
                for (String turn : h.record().sourceRefs()) {
                    turnScores.merge(RecordIds.turn(tenantId, h.record().sessionId(), turn), h.score(), Math::max);
                }
            }
        }
        List<String> ids = new ArrayList<>(turnScores.keySet());
        for (int from = 0; from < ids.size(); from += MAX_TURNS_PER_READ) {
            List<String> read = ids.subList(from, Math.min(ids.size(), from + MAX_TURNS_PER_READ));
            for (MemoryRecord turn : store.get(tenantId, read)) {
                double score = turnScores.get(turn.id());
                ContextItem existing = candidates.get(turn.id());
                if (existing == null || existing.score() < score) {
                    candidates.put(turn.id(), ContextItem.of(turn, score));
                }
            }
        }
    }
}
