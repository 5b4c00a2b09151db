package io.engram.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.jobs.retrieval.ContextService;
import io.engram.jobs.retrieval.HybridRetriever;
import io.engram.jobs.store.MemoryStore;
import io.engram.model.compaction.ExtractiveSummarizer;
import io.engram.model.compaction.SessionCompactor;
import io.engram.model.embed.Embedding;
import io.engram.model.eval.EvidenceRecall;
import io.engram.model.eval.EvidenceRecall.Retrieved;
import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.ServiceOptions;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * LoCoMo retrieval evaluation with no LLM: every conversation becomes a tenant (turns, and the extractive
 * summaries compaction makes of each finished session, embedded and written to OpenSearch through the store
 * production uses); every question of categories 1–4 is answered by five retrievers and the fraction of its
 * evidence turns retrieved is reported at top K and within 500 / 1,000 / 2,000 tokens.
 */
@Command(name = "locomo", mixinStandardHelpOptions = true,
        description = "Evidence recall of BM25, vectors, fusion, re-scoring and full context assembly on LoCoMo.")
final class EvalLocomoCommand implements Callable<Integer> {

    static final int[] BUDGETS = {500, 1000, 2000};
    static final String[] RETRIEVERS = {"bm25", "vector", "fused", "fused+rescored", "context"};
    private static final String INDEX = "engram-memories-locomo";

    @Spec
    CommandSpec spec;

    @Option(names = "--data", converter = ExistingPath.class, required = true, paramLabel = "FILE", description = "LoCoMo JSON.")
    Path data;

    @Option(names = "--budget", paramLabel = "TOKENS", description = "Budget of the headline context (default: ${DEFAULT-VALUE}).")
    int budget = 2000;

    @Option(names = "--k", paramLabel = "K", description = "Top K for recall@K (default: ${DEFAULT-VALUE}).")
    int k = 10;

    @Option(names = "--json", description = "Print the results as JSON.")
    boolean json;

    @Option(names = "--opensearch", paramLabel = "URL", description = "Use this OpenSearch instead of an embedded node.")
    String openSearch;

    @Option(names = "--max-questions", paramLabel = "N", description = "Evaluate at most N questions per conversation.")
    int maxQuestions = Integer.MAX_VALUE;

    /** Sums of recall per retriever and measure ("k" or a budget), per category. */
    static final class Scores {
        final Map<String, double[]> sums = new LinkedHashMap<>();
        int questions;

        void add(String retriever, String measure, double value) {
            sums.computeIfAbsent(retriever + " " + measure, x -> new double[1])[0] += value;
        }

        double mean(String retriever, String measure) {
            double[] s = sums.get(retriever + " " + measure);
            return s == null || questions == 0 ? 0 : s[0] / questions;
        }
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        EmbeddedOpenSearch node = openSearch == null ? EmbeddedOpenSearch.start(ServiceOptions.ephemeral()) : null;
        try (Retrieval retrieval = Retrieval.open(node != null ? node.httpUrl() : openSearch, INDEX)) {
            retrieval.store().ensureIndex(retrieval.embedder().dimension());
            Map<Integer, Scores> byCategory = new LinkedHashMap<>();
            Scores overall = new Scores();
            List<Long> latencies = new ArrayList<>();
            long contextTokens = 0;
            int malformed = 0;
            int skipped = 0;
            HybridRetriever fused = new HybridRetriever(retrieval.store(), retrieval.embedder(),
                    HybridRetriever.Options.DEFAULT.withRanking(HybridRetriever.Ranking.FUSED));
            for (LocomoData.Conversation c : LocomoData.read(data)) {
                String tenant = "locomo-" + c.sampleId().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_-]", "-");
                Map<String, String> turnTexts = ingest(retrieval, tenant, c);
                Instant now = c.turns().get(c.turns().size() - 1).ts().plus(Duration.ofDays(1));
                int asked = 0;
                for (JsonNode qa : LocomoData.questions(data, c.sampleId())) {
                    int category = qa.path("category").asInt();
                    if (category < 1 || category > 4 || asked >= maxQuestions) {
                        continue;
                    }
                    List<String> raw = new ArrayList<>();
                    qa.path("evidence").forEach(e -> raw.add(e.asText()));
                    EvidenceRecall.Evidence evidence = EvidenceRecall.parse(raw);
                    malformed += evidence.malformed();
                    if (evidence.ids().isEmpty()) {
                        skipped++;
                        continue;
                    }
                    asked++;
                    String question = qa.path("question").asText();
                    Scores cat = byCategory.computeIfAbsent(category, x -> new Scores());
                    Map<String, List<MemoryRecord>> ranked = new LinkedHashMap<>();
                    ranked.put("bm25", retrieval.store().bm25(tenant, question, 50, ContextService.MEMORY_TYPES).stream()
                            .map(MemoryStore.ScoredRecord::record).toList());
                    ranked.put("vector", retrieval.store().knn(tenant, retrieval.embedder().embedQuery(question).vector(), 50,
                            ContextService.MEMORY_TYPES).stream().map(MemoryStore.ScoredRecord::record).toList());
                    HybridRetriever.Query query = new HybridRetriever.Query(tenant, question, null, null,
                            ContextService.MEMORY_TYPES, 50, now);
                    ranked.put("fused", fused.search(query).stream().map(HybridRetriever.Result::record).toList());
                    ranked.put("fused+rescored", retrieval.retriever().search(query).stream()
                            .map(HybridRetriever.Result::record).toList());
                    for (Scores s : List.of(cat, overall)) {
                        s.questions++;
                        for (Map.Entry<String, List<MemoryRecord>> r : ranked.entrySet()) {
                            s.add(r.getKey(), "k", EvidenceRecall.recall(evidence.ids(),
                                    retrieved(r.getValue().subList(0, Math.min(k, r.getValue().size())), tenant), turnTexts));
                            for (int b : BUDGETS) {
                                s.add(r.getKey(), String.valueOf(b), EvidenceRecall.recall(evidence.ids(),
                                        retrieved(withinBudget(r.getValue(), b), tenant), turnTexts));
                            }
                        }
                    }
                    for (int b : BUDGETS) {
                        long start = System.nanoTime();
                        AssembledContext context = retrieval.context().assemble(
                                new ContextService.Request(tenant, null, null, question, b), now);
                        if (b == budget) {
                            latencies.add(System.nanoTime() - start);
                            contextTokens += context.tokensUsed();
                        }
                        double recall = EvidenceRecall.recall(evidence.ids(), retrieved(context.included().stream()
                                .map(i -> recordOf(i.item(), tenant)).toList(), tenant), turnTexts);
                        cat.add("context", String.valueOf(b), recall);
                        overall.add("context", String.valueOf(b), recall);
                    }
                }
            }
            report(out, byCategory, overall, latencies, overall.questions == 0 ? 0 : contextTokens / (double) overall.questions,
                    malformed, skipped);
        } finally {
            if (node != null) {
                node.close();
            }
        }
        out.flush();
        return 0;
    }

    /** Turns and the extractive summaries of each finished session, embedded and written; returns id → text. */
    private static Map<String, String> ingest(Retrieval retrieval, String tenant, LocomoData.Conversation c) {
        List<String> texts = c.turns().stream().map(t -> t.speaker() + ": " + t.text()).toList();
        List<Embedding> vectors = retrieval.embedder().embedDocuments(texts);
        List<MemoryRecord> records = new ArrayList<>();
        Map<String, String> turnTexts = new HashMap<>();
        Map<Integer, List<SessionCompactor.Turn>> sessions = new LinkedHashMap<>();
        for (int i = 0; i < texts.size(); i++) {
            LocomoData.Turn t = c.turns().get(i);
            String role = t.speaker().equals(c.speakerA()) ? "user" : "assistant";
            records.add(MemoryRecord.of(tenant + "-" + t.diaId(), tenant, RecordType.TURN, texts.get(i), t.ts())
                    .embedding(vectors.get(i).vector()).session("s" + t.session()).role(role).position(i)
                    .tokens(vectors.get(i).tokens()).build());
            turnTexts.put(t.diaId(), texts.get(i));
            sessions.computeIfAbsent(t.session(), x -> new ArrayList<>()).add(new SessionCompactor.Turn(t.diaId(), i,
                    role, texts.get(i), t.ts(), vectors.get(i).tokens()));
        }
        SessionCompactor compactor = new SessionCompactor(new ExtractiveSummarizer(retrieval.embedder(),
                ExtractiveSummarizer.Options.TURNS), SessionCompactor.Options.DEFAULT);
        for (Map.Entry<Integer, List<SessionCompactor.Turn>> session : sessions.entrySet()) {
            // as the pipeline does: turn by turn, then as idle (every session is over)
            for (SessionCompactor.SummaryRecord s : compactor.compactAsTheyCome(tenant, "s" + session.getKey(),
                    session.getValue(), List.of(), true).summaries()) {
                records.add(MemoryRecord.of(tenant + "-" + s.id(), tenant, RecordType.SUMMARY, s.text(), s.to())
                        .embedding(s.embedding()).provenance(s.sourceRefs(), s.generation())
                        .quality(s.score().confidence(), s.score().decayRate()).session("s" + session.getKey())
                        .tokens(s.summaryTokens()).build());
            }
        }
        retrieval.store().upsert(records);
        retrieval.store().refresh();
        return turnTexts;
    }

    private static List<MemoryRecord> withinBudget(List<MemoryRecord> ranked, int budget) {
        List<MemoryRecord> kept = new ArrayList<>();
        int left = budget;
        for (MemoryRecord r : ranked) {
            if (r.tokens() <= left) {
                kept.add(r);
                left -= r.tokens();
            }
        }
        return kept;
    }

    private static List<Retrieved> retrieved(List<MemoryRecord> records, String tenant) {
        return records.stream().map(r -> r.type() == RecordType.SUMMARY ? Retrieved.summary(r.text())
                : Retrieved.turn(r.id().substring(tenant.length() + 1), r.text())).toList();
    }

    private static MemoryRecord recordOf(io.engram.model.retrieval.ContextItem item, String tenant) {
        return MemoryRecord.of(item.id(), tenant, item.type(), item.text(), Instant.EPOCH).tokens(item.tokens()).build();
    }

    private void report(PrintWriter out, Map<Integer, Scores> byCategory, Scores overall, List<Long> latencies,
                        double meanContextTokens, int malformed, int skipped) throws Exception {
        long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        double p50 = sorted.length == 0 ? 0 : sorted[(int) Math.ceil(0.5 * sorted.length) - 1] / 1e6;
        double p95 = sorted.length == 0 ? 0 : sorted[(int) Math.ceil(0.95 * sorted.length) - 1] / 1e6;
        if (json) {
            ObjectNode root = ResponsesJson.JSON.createObjectNode();
            root.put("k", k).put("questions", overall.questions).put("malformed_evidence_ids", malformed)
                    .put("questions_without_evidence", skipped).put("mean_context_tokens", meanContextTokens)
                    .put("context_latency_p50_ms", p50).put("context_latency_p95_ms", p95);
            root.set("overall", scoresJson(overall));
            ObjectNode cats = root.putObject("categories");
            byCategory.forEach((cat, s) -> cats.set(String.valueOf(cat), scoresJson(s)));
            out.println(ResponsesJson.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root));
            return;
        }
        out.printf(Locale.ROOT, "%d questions (categories 1-4), %d malformed evidence ids tolerated, %d without evidence%n",
                overall.questions, malformed, skipped);
        out.printf(Locale.ROOT, "context at %d tokens: mean %.0f tokens used, latency p50 %.1f ms, p95 %.1f ms%n%n",
                budget, meanContextTokens, p50, p95);
        table(out, "all", overall);
        for (Map.Entry<Integer, Scores> e : byCategory.entrySet()) {
            table(out, "category " + e.getKey(), e.getValue());
        }
    }

    private ObjectNode scoresJson(Scores s) {
        ObjectNode node = ResponsesJson.JSON.createObjectNode();
        node.put("questions", s.questions);
        for (String r : RETRIEVERS) {
            ObjectNode o = node.putObject(r);
            if (!r.equals("context")) {
                o.put("recall_at_k", s.mean(r, "k"));
            }
            for (int b : BUDGETS) {
                o.put("recall_within_" + b, s.mean(r, String.valueOf(b)));
            }
        }
        return node;
    }

    private void table(PrintWriter out, String title, Scores s) {
        out.printf(Locale.ROOT, "%s (%d questions)%n  %-16s %9s %9s %9s %9s%n", title, s.questions, "retriever",
                "recall@" + k, "@500 tok", "@1000 tok", "@2000 tok");
        for (String r : RETRIEVERS) {
            out.printf(Locale.ROOT, "  %-16s %9s %9.3f %9.3f %9.3f%n", r,
                    r.equals("context") ? "-" : String.format(Locale.ROOT, "%.3f", s.mean(r, "k")),
                    s.mean(r, "500"), s.mean(r, "1000"), s.mean(r, "2000"));
        }
        out.println();
    }
}
