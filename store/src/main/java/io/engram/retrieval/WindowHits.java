package io.engram.retrieval;

import io.engram.model.retrieval.ContextItem;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.model.retrieval.WindowTurnFocus;
import io.engram.store.MemoryReader;
import io.engram.store.RecordIds;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What a context does with the windows of turns it retrieved ({@link io.engram.model.retrieval.TurnWindows}): each
 * window among the candidates gives way to its turns. The read of their turns is queued in the caller's batch
 * ({@link #queue}), so it shares a round trip with the neighbours' read, and applied once that batch ran
 * ({@link #open}).
 */
final class WindowHits {

    /** No windows among the candidates: opening them changes nothing. */
    static final WindowHits NONE = new WindowHits(Map.of(), Map.of(), List::of);

    /** The score each turn hit has on its own, by id. */
    private final Map<String, Double> own;
    /** The windows among the candidates, each with the ids of its turns. */
    private final Map<HybridRetriever.Result, List<String>> windows;
    private final Supplier<List<MemoryRecord>> turns;

    private WindowHits(Map<String, Double> own, Map<HybridRetriever.Result, List<String>> windows,
                       Supplier<List<MemoryRecord>> turns) {
        this.own = own;
        this.windows = windows;
        this.turns = turns;
    }

    /** {@code types} and windows. */
    static Set<RecordType> withWindows(Set<RecordType> types) {
        Set<RecordType> searched = EnumSet.of(RecordType.WINDOW);
        searched.addAll(types);
        return Set.copyOf(searched);
    }

    /** The windows among the candidates, and the read of their turns queued in {@code reads}. */
    static WindowHits queue(MemoryReader.ReadBatch reads, String tenantId, List<HybridRetriever.Result> hits,
                            Map<String, ContextItem> candidates) {
        Map<String, Double> own = new HashMap<>();
        Map<HybridRetriever.Result, List<String>> windows = new LinkedHashMap<>();
        Set<String> ids = new LinkedHashSet<>();
        for (HybridRetriever.Result h : hits) {
            if (h.record().type() == RecordType.TURN) {
                own.merge(h.record().id(), h.score(), Math::max);
            } else if (h.record().type() == RecordType.WINDOW && candidates.containsKey(h.record().id())) {
                List<String> turnIds = h.record().sourceRefs().stream()
                        .map(turn -> RecordIds.turn(tenantId, h.record().sessionId(), turn)).toList();
                windows.put(h, turnIds);
                ids.addAll(turnIds);
            }
        }
        if (windows.isEmpty()) {
            return NONE;
        }
        return new WindowHits(own, windows, reads.getAll(List.copyOf(ids)));
    }

    /** Once the batch ran: each window among the candidates with the turns of it that were read, in order. */
    Map<HybridRetriever.Result, List<MemoryRecord>> turns() {
        Map<String, MemoryRecord> read = new HashMap<>();
        turns.get().forEach(turn -> read.put(turn.id(), turn));
        Map<HybridRetriever.Result, List<MemoryRecord>> held = new LinkedHashMap<>();
        windows.forEach((window, turnIds) -> held.put(window, turnIds.stream().filter(read::containsKey).map(read::get).toList()));
        return held;
    }

    /**
     * Once the batch ran: each window leaves the candidates for its turns, scored as {@code focus} scores them within
     * the window unless they score higher on their own; a turn is a candidate once, however many windows hold it.
     */
    void open(String query, WindowTurnFocus focus, Map<String, ContextItem> candidates) {
        Map<String, MemoryRecord> read = new HashMap<>();
        Map<String, Double> turnScores = new LinkedHashMap<>();
        turns().forEach((window, held) -> {
            candidates.remove(window.record().id());
            double[] scores = focus.scores(query, window.score(), held.stream().map(MemoryRecord::text).toList(),
                    ownScores(held));
            for (int i = 0; i < held.size(); i++) {
                read.put(held.get(i).id(), held.get(i));
                turnScores.merge(held.get(i).id(), scores[i], Math::max);
            }
        });
        turnScores.forEach((id, score) -> {
            ContextItem existing = candidates.get(id);
            if (existing == null || existing.score() < score) {
                candidates.put(id, ContextItem.of(read.get(id), score));
            }
        });
    }

    /** Each turn's own score among the hits, 0 when it is not one, in the order of {@code turns}. */
    double[] ownScores(List<MemoryRecord> turns) {
        return turns.stream().mapToDouble(t -> own.getOrDefault(t.id(), 0.0)).toArray();
    }
}
