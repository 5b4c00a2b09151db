package io.engram.launcher;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.model.retrieval.LearnedRelevance;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.retrieval.ContextService;
import io.engram.retrieval.HybridRetriever;
import io.engram.retrieval.Retrieval;
import io.engram.store.MemoryReader;
import io.engram.store.RecordIds;
import io.engram.service.ResponsesJson;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What {@link LearnedRelevance}'s weights are fitted on ({@code tools/fit-learned-relevance.py}): for each question,
 * every candidate a context's retrievers return (50 from each, fused), with its features and the evidence turns it
 * holds — a turn its own dialogue id, a window those of its turns — and every turn a context could hold from them
 * (the turn hits and the turns around them, the windows' turns) with its text, tokens, session and position, from
 * which {@link io.engram.model.retrieval.LearnedTurnRelevance}'s features are computed. One JSON line per question.
 */
final class LocomoFeatures implements AutoCloseable {

    /** Far more than the fused lists hold: every candidate comes back. */
    private static final int ALL = 10_000;

    /** How far around a retrieved turn the turns a context could hold are written: the neighbours' radius. */
    private static final int AROUND = 2;

    private final BufferedWriter out;
    private final MemoryReader store;
    private final HybridRetriever retriever;
    private final Set<RecordType> types;
    private int questions;

    LocomoFeatures(Path file, Retrieval retrieval) throws IOException {
        this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        this.store = retrieval.store();
        this.retriever = new HybridRetriever(retrieval.store(), retrieval.embedder(),
                HybridRetriever.Options.FOR_CONTEXT.learnedBy(LearnedRelevance.NONE));
        Set<RecordType> searched = EnumSet.of(RecordType.WINDOW);
        searched.addAll(ContextService.CONTEXT_TYPES);
        this.types = Set.copyOf(searched);
    }

    void write(String conversation, int category, String tenant, String question, Set<String> evidence, Instant now) {
        List<HybridRetriever.Result> hits = retriever.search(new HybridRetriever.Query(tenant, question, null, null, types,
                ALL, now));
        double[][] features = LearnedRelevance.features(question, hits.stream().map(HybridRetriever::hit).toList());
        ObjectNode line = ResponsesJson.JSON.createObjectNode().put("conversation", conversation)
                .put("category", category).put("question", question);
        LearnedRelevance.FEATURES.forEach(line.putArray("features")::add);
        evidence.forEach(line.putArray("evidence")::add);
        ArrayNode candidates = line.putArray("candidates");
        for (int i = 0; i < hits.size(); i++) {
            HybridRetriever.Result h = hits.get(i);
            ObjectNode c = candidates.addObject().put("window", h.record().type() == RecordType.WINDOW)
                    .put("tokens", h.record().tokens());
            List<String> turns = h.record().type() == RecordType.WINDOW ? h.record().sourceRefs()
                    : List.of(dialogueId(h.record()));
            turns.forEach(c.putArray("turns")::add);
            ArrayNode f = c.putArray("features");
            for (double v : features[i]) {
                f.add(v);
            }
        }
        ObjectNode turns = line.putObject("turns");
        turnsBrought(tenant, hits).forEach(t -> turns.putObject(dialogueId(t)).put("text", t.text()).put("tokens", t.tokens())
                .put("session", t.sessionId()).put("position", t.position()));
        try {
            out.write(ResponsesJson.JSON.writeValueAsString(line));
            out.newLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        questions++;
    }

    /** The turns a context could hold from these hits: the turn hits and the turns around them, the windows' turns. */
    private List<MemoryRecord> turnsBrought(String tenant, List<HybridRetriever.Result> hits) {
        Map<String, Set<Integer>> positions = new HashMap<>();
        List<String> windowTurns = new ArrayList<>();
        for (HybridRetriever.Result h : hits) {
            MemoryRecord r = h.record();
            if (r.type() == RecordType.TURN && r.sessionId() != null && r.position() != null) {
                positions.computeIfAbsent(r.sessionId(), s -> new HashSet<>()).add(r.position());
            } else if (r.type() == RecordType.WINDOW) {
                r.sourceRefs().forEach(turn -> windowTurns.add(RecordIds.turn(tenant, r.sessionId(), turn)));
            }
        }
        MemoryReader.ReadBatch reads = store.reads(tenant);
        Supplier<List<MemoryRecord>> around = reads.turnsAround(positions, AROUND);
        Supplier<List<MemoryRecord>> inWindows = reads.getAll(List.copyOf(new LinkedHashSet<>(windowTurns)));
        reads.run();
        Map<String, MemoryRecord> turns = new LinkedHashMap<>();
        around.get().forEach(t -> turns.put(t.id(), t));
        inWindows.get().forEach(t -> turns.put(t.id(), t));
        return List.copyOf(turns.values());
    }

    private static String dialogueId(MemoryRecord turn) {
        return turn.id().substring(turn.id().lastIndexOf('/') + 1);
    }

    int questions() {
        return questions;
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
