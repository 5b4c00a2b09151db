package io.engram.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.client.PayloadKind;
import io.engram.client.PayloadValidator;
import io.engram.model.compaction.ExtractiveSummarizer;
import io.engram.model.compaction.SessionCompactor;
import io.engram.model.compaction.SessionCompactor.SummaryRecord;
import io.engram.model.compaction.SessionCompactor.Turn;
import io.engram.model.embed.CachingEmbedder;
import io.engram.model.embed.EmbeddingModel;
import io.engram.service.ResponsesJson;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "compact", mixinStandardHelpOptions = true,
        description = {"Compact one session and print its raw tail and summaries.",
                "Reads turn.v1 records (one JSON per line, validated as the job validates them) and prints the recent",
                "raw tail and the summaries with their preservation scores."})
final class CompactCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--session", converter = ExistingPath.class, required = true, paramLabel = "FILE.jsonl", description = "turn.v1 records of one session.")
    Path session;

    @Option(names = "--json", description = "Print one JSON object {tail, summaries}.")
    boolean json;

    @Option(names = "--idle", description = "Treat the session as gone quiet: compact what waits even below k turns.")
    boolean idle;

    @Option(names = "--sentences", description = "Sentence-level summaries with redundancy control (MMR).")
    boolean sentences;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Map<String, PayloadValidator.Valid> byId = new LinkedHashMap<>();
        PayloadValidator validator = new PayloadValidator(PayloadValidator.Limits.DEFAULT);
        for (JsonLine line : JsonLine.read(session)) {
            // the job's own validation: what it would reject, this command refuses, with the line and the field
            PayloadValidator.Result result = validator.validate(line.text().getBytes(StandardCharsets.UTF_8),
                    PayloadKind.TURN);
            if (result instanceof PayloadValidator.Invalid bad) {
                spec.commandLine().getErr().println("engram compact: line " + line.number() + ": "
                        + bad.reason().code() + ": " + bad.message());
                return 2;
            }
            PayloadValidator.Valid turn = (PayloadValidator.Valid) result;
            byId.putIfAbsent(turn.payload().path("turn_id").asText(), turn); // a replayed turn counts once
        }
        try (CachingEmbedder embedder = new CachingEmbedder(EmbeddingModel.ALL_MINILM_L6_V2.open(), 10_000)) {
            List<Turn> turns = new ArrayList<>();
            for (PayloadValidator.Valid valid : byId.values()) {
                JsonNode t = valid.payload();
                String text = t.path("text").asText();
                turns.add(new Turn(t.path("turn_id").asText(), t.path("seq").asLong(), t.path("role").asText(),
                        text, valid.ts(), embedder.tokenCounter().count(text)));
            }
            turns.sort(Comparator.comparingLong(Turn::seq).thenComparing(Turn::turnId));
            JsonNode first = byId.values().stream().findFirst().map(PayloadValidator.Valid::payload).orElse(null);
            String tenant = first == null ? "local" : first.path("tenant_id").asText();
            String sessionId = first == null ? "session" : first.path("session_id").asText();
            SessionCompactor compactor = new SessionCompactor(new ExtractiveSummarizer(embedder,
                    sentences ? ExtractiveSummarizer.Options.SENTENCES : ExtractiveSummarizer.Options.TURNS),
                    SessionCompactor.Options.DEFAULT);
            SessionCompactor.Outcome outcome = compactor.compactAsTheyCome(tenant, sessionId, turns, List.of(), idle);
            List<Turn> raw = turns.stream().filter(t -> !outcome.compactedTurnIds().contains(t.turnId())).toList();
            List<Turn> tail = raw.subList(SessionCompactor.Options.DEFAULT.tail().start(raw, Turn::tokens), raw.size());
            if (json) {
                out.println(ResponsesJson.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(toJson(tail, outcome)));
            } else {
                printText(out, turns.size(), tail, outcome);
            }
        }
        out.flush();
        return 0;
    }

    static ObjectNode toJson(List<Turn> tail, SessionCompactor.Outcome outcome) {
        ObjectNode root = ResponsesJson.JSON.createObjectNode();
        ArrayNode tailJson = root.putArray("tail");
        for (Turn t : tail) {
            tailJson.addObject().put("turn_id", t.turnId()).put("seq", t.seq()).put("role", t.role()).put("text", t.text());
        }
        ArrayNode summaries = root.putArray("summaries");
        for (SummaryRecord s : outcome.summaries()) {
            ObjectNode o = summaries.addObject().put("id", s.id()).put("text", s.text());
            s.sourceRefs().forEach(o.putArray("source_refs")::add);
            o.put("generation", s.generation()).put("q_align", s.score().qAlign()).put("q_cover", s.score().qCover())
                    .put("confidence", s.score().confidence()).put("decay_rate", s.score().decayRate())
                    .put("source_tokens", s.sourceTokens()).put("summary_tokens", s.summaryTokens());
        }
        root.put("declined_clusters", outcome.declinedClusters());
        return root;
    }

    private static void printText(PrintWriter out, int turns, List<Turn> tail, SessionCompactor.Outcome outcome) {
        out.printf(Locale.ROOT, "%d turns: %d summaries, %d turns compacted, %d kept raw in the tail%n", turns,
                outcome.summaries().size(), outcome.compactedTurnIds().size(), tail.size());
        for (SummaryRecord s : outcome.summaries()) {
            out.printf(Locale.ROOT, "%n%s  generation %d  %d -> %d tokens  q_align %.3f  q_cover %.3f  confidence %.3f%n",
                    s.id(), s.generation(), s.sourceTokens(), s.summaryTokens(), s.score().qAlign(), s.score().qCover(),
                    s.score().confidence());
            out.println(s.text());
        }
        out.println();
        out.println("recent tail:");
        tail.forEach(t -> out.println("  [" + t.seq() + "] " + t.role() + ": " + t.text()));
    }
}
