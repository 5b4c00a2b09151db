package io.engram.retrieval;

import io.engram.model.retrieval.ContextItem;
import io.engram.model.retrieval.LearnedRelevance;
import io.engram.model.retrieval.LearnedTurnRelevance;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.model.retrieval.WindowTurnFocus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A context's candidates scored by {@link LearnedTurnRelevance}: every memory the related hits bring — the hits, the
 * turns of the retrieved windows (the windows themselves give way to them) and the turns around retrieved turns —
 * described by how it came, each once.
 */
final class LearnedTurns {

    /** The turns of a window that count as its focus, as {@link WindowTurnFocus} chooses them. */
    private static final WindowTurnFocus FOCUS = new WindowTurnFocus(2, 0);

    /** How one memory came, gathered from every hit, window and neighbourhood that brought it. */
    private static final class Provenance {
        final MemoryRecord record;
        double hitProbability;
        int hitRank;
        double windowProbability;
        boolean windowFocus;
        int windows;
        double neighbour1;
        double neighbour2;

        Provenance(MemoryRecord record) {
            this.record = record;
        }
    }

    private final Map<String, Provenance> byId = new LinkedHashMap<>();
    /** The retrieved turns' probabilities: session -> position -> probability. */
    private final Map<String, Map<Integer, Double>> hitTurns = new HashMap<>();

    private LearnedTurns() {
    }

    /**
     * Replaces {@code candidates} with every memory the {@code related} hits bring, scored by {@code relevance}.
     *
     * @param related the related hits, best first, scored by a {@link HybridRetriever.Ranking#LEARNED} ranking
     * @param around  the turns read around the retrieved turns
     * @param windows the retrieved windows with their turns
     */
    static void score(String query, List<HybridRetriever.Result> related, List<MemoryRecord> around, WindowHits windows,
                      LearnedTurnRelevance relevance, Map<String, ContextItem> candidates) {
        LearnedTurns turns = new LearnedTurns();
        turns.addHits(related);
        turns.addWindows(query, windows);
        around.forEach(turns::of);
        turns.addNeighbourhoods();
        List<Provenance> all = new ArrayList<>(turns.byId.values());
        double[] scores = relevance.scores(query, all.stream().map(p -> new LearnedTurnRelevance.Candidate(p.record.text(),
                p.record.tokens(), p.hitProbability, p.hitRank, p.windowProbability, p.windowFocus, p.windows, p.neighbour1,
                p.neighbour2)).toList());
        candidates.clear();
        for (int i = 0; i < scores.length; i++) {
            candidates.put(all.get(i).record.id(), ContextItem.of(all.get(i).record, scores[i]));
        }
    }

    /** Each retrieved memory but the windows, with its probability and first rank. */
    private void addHits(List<HybridRetriever.Result> related) {
        for (int i = 0; i < related.size(); i++) {
            HybridRetriever.Result hit = related.get(i);
            if (hit.record().type() == RecordType.WINDOW) {
                continue;
            }
            double probability = LearnedRelevance.probability(hit.score(), hit.record().tokens());
            Provenance p = of(hit.record());
            p.hitProbability = Math.max(p.hitProbability, probability);
            p.hitRank = p.hitRank == 0 ? i + 1 : p.hitRank;
            if (hit.record().type() == RecordType.TURN && hit.record().sessionId() != null && hit.record().position() != null) {
                hitTurns.computeIfAbsent(hit.record().sessionId(), s -> new HashMap<>())
                        .merge(hit.record().position(), probability, Math::max);
            }
        }
    }

    /** The turns of each retrieved window, with the window's probability and whether they are its focus. */
    private void addWindows(String query, WindowHits windows) {
        windows.turns().forEach((window, held) -> {
            double probability = LearnedRelevance.probability(window.score(), window.record().tokens());
            double[] focus = FOCUS.scores(query, 1, held.stream().map(MemoryRecord::text).toList(), windows.ownScores(held));
            for (int i = 0; i < held.size(); i++) {
                Provenance p = of(held.get(i));
                p.windows++;
                p.windowProbability = Math.max(p.windowProbability, probability);
                p.windowFocus |= focus[i] > 0;
            }
        });
    }

    /** For every turn, the best probability of a retrieved turn next to it and two away. */
    private void addNeighbourhoods() {
        for (Provenance p : byId.values()) {
            Map<Integer, Double> session = p.record.sessionId() == null ? null : hitTurns.get(p.record.sessionId());
            if (session != null && p.record.position() != null) {
                int position = p.record.position();
                p.neighbour1 = Math.max(session.getOrDefault(position - 1, 0.0), session.getOrDefault(position + 1, 0.0));
                p.neighbour2 = Math.max(session.getOrDefault(position - 2, 0.0), session.getOrDefault(position + 2, 0.0));
            }
        }
    }

    private Provenance of(MemoryRecord record) {
        return byId.computeIfAbsent(record.id(), id -> new Provenance(record));
    }
}
