package io.engram.launcher;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.model.retrieval.LearnedRelevance;
import io.engram.model.retrieval.RecordType;
import io.engram.retrieval.ContextService;
import io.engram.retrieval.HybridRetriever;
import io.engram.retrieval.Retrieval;
import io.engram.service.ResponsesJson;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * What {@link LearnedRelevance}'s weights are fitted on ({@code tools/fit-learned-relevance.py}): for each question,
 * every candidate a context's retrievers return (50 from each, fused), with its features and the evidence turns it
 * holds — a turn its own dialogue id, a window those of its turns. One JSON line per question.
 */
final class LocomoFeatures implements AutoCloseable {

    /** Far more than the fused lists hold: every candidate comes back. */
    private static final int ALL = 10_000;

    private final BufferedWriter out;
    private final HybridRetriever retriever;
    private final Set<RecordType> types;
    private int questions;

    LocomoFeatures(Path file, Retrieval retrieval) throws IOException {
        this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
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
                    : List.of(h.record().id().substring(h.record().id().lastIndexOf('/') + 1));
            turns.forEach(c.putArray("turns")::add);
            ArrayNode f = c.putArray("features");
            for (double v : features[i]) {
                f.add(v);
            }
        }
        try {
            out.write(ResponsesJson.JSON.writeValueAsString(line));
            out.newLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        questions++;
    }

    int questions() {
        return questions;
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
