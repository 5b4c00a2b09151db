package io.engram.retrieval;

import io.engram.model.retrieval.ContextItem;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.model.retrieval.WindowTurnFocus;
import io.engram.store.MemoryReader;
import io.engram.store.RecordIds;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
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
     * Each window among the candidates gives way to its turns, scored as {@code focus} scores them within the window
     * unless they score higher on their own: a turn is a candidate once, however many windows hold it.
     */
    static void open(MemoryReader store, String tenantId, String query, WindowTurnFocus focus,
                     List<HybridRetriever.Result> hits, Map<String, ContextItem> candidates) {
        Map<String, Double> own = new HashMap<>();
        Map<HybridRetriever.Result, List<String>> windows = new LinkedHashMap<>();
        Set<String> ids = new LinkedHashSet<>();
        for (HybridRetriever.Result h : hits) {
            if (h.record().type() == RecordType.TURN) {
                own.merge(h.record().id(), h.score(), Math::max);
            } else if (h.record().type() == RecordType.WINDOW && candidates.remove(h.record().id()) != null) {
                List<String> turns = h.record().sourceRefs().stream()
                        .map(turn -> RecordIds.turn(tenantId, h.record().sessionId(), turn)).toList();
                windows.put(h, turns);
                ids.addAll(turns);
            }
        }
        Map<String, MemoryRecord> read = read(store, tenantId, new ArrayList<>(ids));
        Map<String, Double> turnScores = new LinkedHashMap<>();
        windows.forEach((window, turnIds) -> {
            List<String> held = turnIds.stream().filter(read::containsKey).toList();
            double[] scores = focus.scores(query, window.score(), held.stream().map(id -> read.get(id).text()).toList(),
                    held.stream().mapToDouble(id -> own.getOrDefault(id, 0.0)).toArray());
            for (int i = 0; i < held.size(); i++) {
                turnScores.merge(held.get(i), scores[i], Math::max);
            }
        });
        turnScores.forEach((id, score) -> {
            ContextItem existing = candidates.get(id);
            if (existing == null || existing.score() < score) {
                candidates.put(id, ContextItem.of(read.get(id), score));
            }
        });
    }

    /** The turns of these ids the store holds, by id, {@value #MAX_TURNS_PER_READ} a request. */
    private static Map<String, MemoryRecord> read(MemoryReader store, String tenantId, List<String> ids) {
        Map<String, MemoryRecord> read = new HashMap<>();
        for (int from = 0; from < ids.size(); from += MAX_TURNS_PER_READ) {
            for (MemoryRecord turn : store.get(tenantId, ids.subList(from, Math.min(ids.size(), from + MAX_TURNS_PER_READ)))) {
                read.put(turn.id(), turn);
            }
        }
        return read;
    }
}
