package io.engram.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.client.EngramProducer;
import io.engram.client.KafkaClients;
import io.engram.client.Payload;
import io.engram.client.PayloadValidator;
import io.engram.jobs.EngramSetup;
import io.engram.jobs.PipelineConfig;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.eval.EvidenceRecall;
import io.engram.model.eval.EvidenceRecall.Retrieved;
import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.ContextItem;
import io.engram.model.retrieval.RecordType;
import io.engram.model.retrieval.RelevanceFloor;
import io.engram.retrieval.ContextService;
import io.engram.retrieval.HybridRetriever;
import io.engram.retrieval.Retrieval;
import io.engram.service.ResponsesJson;
import io.engram.stack.EmbeddedStack;
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
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * LoCoMo retrieval evaluation with no LLM, through the real pipeline: every conversation becomes a tenant whose
 * turns are produced to Kafka as turn.v1 records (the gateway client, speaker-named text), the Engram job runs
 * over them on a local MiniCluster into OpenSearch, and every question of categories 1–4 is answered by the code
 * behind {@code POST /v1/search} and {@code POST /v1/context}. Reports the fraction of each question's evidence
 * turns retrieved at top K and within 500 / 1,000 / 2,000 tokens, per retriever and per context ablation.
 */
@Command(name = "locomo", mixinStandardHelpOptions = true,
        description = "Evidence recall of BM25, vectors, fusion, re-scoring and context assembly on LoCoMo, through the pipeline.")
final class EvalLocomoCommand implements Callable<Integer> {

    static final int[] BUDGETS = {500, 1000, 2000};
    /** The ranked lists and the assembled context, as the JSON names them. */
    static final List<String> RETRIEVERS = List.of("bm25", "vector", "fused", "rescored", "context");

    @Spec
    CommandSpec spec;

    @Option(names = "--data", converter = ExistingPath.class, required = true, paramLabel = "FILE", description = "LoCoMo JSON.")
    Path data;

    @Option(names = "--budget", paramLabel = "TOKENS",
            description = "Which budget (500, 1000 or 2000) reports tokens used and latency (default: ${DEFAULT-VALUE}).")
    int budget = 2000;

    @Option(names = "--k", paramLabel = "K", description = "Top K for recall@K (default: ${DEFAULT-VALUE}).")
    int k = 10;

    @Option(names = "--json", description = "Print the results as JSON.")
    boolean json;

    @Option(names = "--embed-model", paramLabel = "ID", description = "Embedding model of the pipeline (default: the pipeline's default).")
    String embedModel;

    @Option(names = "--config", converter = ExistingPath.class, paramLabel = "FILE",
            description = "Run against the Kafka, OpenSearch and PostgreSQL of this pipeline properties file instead of"
                    + " an embedded stack (a new index engram-memories-eval-<time> is written).")
    Path config;

    @Option(names = "--max-questions", paramLabel = "N", description = "Evaluate at most N questions per conversation.")
    int maxQuestions = Integer.MAX_VALUE;

    /** Sums of one measure per retriever, per category. */
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
        PrintWriter progress = spec.commandLine().getErr();
        if (budget != 500 && budget != 1000 && budget != 2000) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--budget must be 500, 1000 or 2000: " + budget);
        }
        List<LocomoData.Conversation> conversations = LocomoData.read(data);
        Optional<EmbeddedStack> stack = config != null ? Optional.empty() : Optional.of(EmbeddedStack.start(
                EmbeddedStack.Config.all(Optional.empty()),
                (service, address) -> say(progress, service.name().toLowerCase(Locale.ROOT) + " ready at " + address)));
        try {
            long startedAt = System.currentTimeMillis();
            Properties p = stack.isPresent() ? LocalPipeline.embedded(stack.get(), true) : RunCommand.load(config);
            // a run of its own: its group, its transactions, only the records it sends, an index of its own
            p.setProperty("kafka.bounded", "true");
            p.setProperty("kafka.group", "engram-eval-" + startedAt);
            p.setProperty("kafka.transactional-id-prefix", "engram-eval-" + startedAt);
            p.setProperty("kafka.starting-offsets", "timestamp:" + startedAt);
            p.setProperty("opensearch.index", "engram-memories-eval-" + startedAt);
            if (embedModel != null) {
                p.setProperty("embed.model", EmbeddingModel.ofId(embedModel).id());
            }
            PipelineConfig pipeline = PipelineConfig.fromProperties(p);
            EngramSetup.prepare(pipeline, step -> { });
            int turns = produce(pipeline.kafka(), conversations);
            say(progress, "produced " + turns + " turns of " + conversations.size() + " conversations; running the pipeline ("
                    + pipeline.embeddingModel().id() + ") into " + pipeline.index() + " ...");
            long ingestStart = System.nanoTime();
            LocalPipeline.run(p, pipeline, "engram-eval-locomo");
            double ingestSeconds = (System.nanoTime() - ingestStart) / 1e9;
            say(progress, String.format(Locale.ROOT, "pipeline done in %.1f s; asking the questions ...", ingestSeconds));
            try (Retrieval retrieval = Retrieval.open(pipeline.openSearch(), pipeline.index())) {
                retrieval.store().refresh();
                Result result = evaluate(retrieval, conversations);
                report(out, result, pipeline.embeddingModel().id(), turns, ingestSeconds);
            }
        } finally {
            stack.ifPresent(EmbeddedStack::close);
        }
        out.flush();
        return 0;
    }

    private static void say(PrintWriter progress, String line) {
        progress.println("[eval] " + line);
        progress.flush();
    }

    /**
     * Each conversation as a gateway would send it: tenant {@code locomo-<sample>}, session {@code s<N>}, the
     * first speaker as the user, text prefixed by the speaker's name (two people talk; the name is part of what
     * was said to whom), turns 30 s apart from the session's date-time.
     */
    private static int produce(KafkaClients kafka, List<LocomoData.Conversation> conversations) {
        int n = 0;
        try (EngramProducer producer = new EngramProducer(kafka, new Properties(), PayloadValidator.Limits.DEFAULT)) {
            for (LocomoData.Conversation c : conversations) {
                Map<Integer, Integer> seq = new HashMap<>();
                for (LocomoData.Turn t : c.turns()) {
                    producer.send(Payload.turn(tenant(c), "s" + t.session(), null, t.diaId(),
                            seq.merge(t.session(), 1, Integer::sum) - 1,
                            t.speaker().equals(c.speakerA()) ? "user" : "assistant", text(t), t.ts()));
                    n++;
                }
            }
            producer.flush();
        }
        return n;
    }

    static String tenant(LocomoData.Conversation c) {
        return "locomo-" + c.sampleId().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_-]", "-");
    }

    private static String text(LocomoData.Turn t) {
        return t.speaker() + ": " + t.text();
    }

    /** What was measured. */
    private record Result(Map<Integer, Scores> byCategory, Scores overall, Map<String, Scores> ablations,
                          List<Long> contextNanos, int malformed, int skipped) {
    }

    /** The context ablations: the full assembly with one technique switched off. */
    private static Map<String, ContextService.Options> ablations() {
        Map<String, ContextService.Options> a = new LinkedHashMap<>();
        ContextService.Options all = ContextService.Options.DEFAULT;
        a.put("no_neighbours", all.withoutNeighbours());
        a.put("keep_duplicates", all.keepingDuplicates());
        a.put("no_floor", all.withFloor(RelevanceFloor.NONE));
        a.put("with_summaries", all.withMemoryTypes(ContextService.MEMORY_TYPES));
        a.put("100_candidates", all.withCandidates(100));
        return a;
    }

    private Result evaluate(Retrieval retrieval, List<LocomoData.Conversation> conversations) throws Exception {
        Map<Integer, Scores> byCategory = new LinkedHashMap<>();
        Scores overall = new Scores();
        Map<String, Scores> ablationScores = new LinkedHashMap<>();
        Map<String, ContextService> ablated = new LinkedHashMap<>();
        ablations().forEach((name, options) -> {
            ablated.put(name, new ContextService(retrieval.store(), retrieval.retriever(), options));
            ablationScores.put(name, new Scores());
        });
        HybridRetriever fused = new HybridRetriever(retrieval.store(), retrieval.embedder(),
                HybridRetriever.Options.DEFAULT.withRanking(HybridRetriever.Ranking.FUSED));
        int depth = ContextService.Options.DEFAULT.candidates();
        List<Long> latencies = new ArrayList<>();
        int malformed = 0;
        int skipped = 0;
        for (LocomoData.Conversation c : conversations) {
            String tenant = tenant(c);
            Map<String, String> turnTexts = new HashMap<>();
            c.turns().forEach(t -> turnTexts.put(t.diaId(), text(t)));
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
                Map<String, List<ContextItem>> ranked = new LinkedHashMap<>();
                ranked.put("bm25", retrieval.store().bm25(tenant, question, depth, ContextService.MEMORY_TYPES).stream()
                        .map(h -> ContextItem.of(h.record(), h.score())).toList());
                ranked.put("vector", retrieval.store().knn(tenant, retrieval.embedder().embedQuery(question).vector(),
                        depth, ContextService.MEMORY_TYPES).stream().map(h -> ContextItem.of(h.record(), h.score())).toList());
                HybridRetriever.Query query = new HybridRetriever.Query(tenant, question, null, null,
                        ContextService.MEMORY_TYPES, depth, now);
                ranked.put("fused", fused.search(query).stream().map(h -> ContextItem.of(h.record(), h.score())).toList());
                ranked.put("rescored", retrieval.retriever().search(query).stream()
                        .map(h -> ContextItem.of(h.record(), h.score())).toList());
                for (Scores s : List.of(cat, overall)) {
                    s.questions++;
                }
                for (Map.Entry<String, List<ContextItem>> r : ranked.entrySet()) {
                    List<ContextItem> top = r.getValue().subList(0, Math.min(k, r.getValue().size()));
                    add(List.of(cat, overall), r.getKey(), "k", recall(evidence, top, tenant, turnTexts));
                    for (int b : BUDGETS) {
                        List<ContextItem> within = withinBudget(r.getValue(), b);
                        add(List.of(cat, overall), r.getKey(), String.valueOf(b), recall(evidence, within, tenant, turnTexts));
                        if (b == budget) {
                            add(List.of(cat, overall), r.getKey(), "tokens", within.stream().mapToInt(ContextItem::tokens).sum());
                        }
                    }
                }
                for (int b : BUDGETS) {
                    long start = System.nanoTime();
                    AssembledContext context = retrieval.context().assemble(
                            new ContextService.Request(tenant, null, null, question, b), now);
                    if (b == budget) {
                        latencies.add(System.nanoTime() - start);
                        add(List.of(cat, overall), "context", "tokens", context.tokensUsed());
                        add(List.of(cat, overall), "context", "date_tokens", dateTokens(context));
                    }
                    add(List.of(cat, overall), "context", String.valueOf(b), recall(evidence, included(context), tenant, turnTexts));
                }
                for (Map.Entry<String, ContextService> a : ablated.entrySet()) {
                    Scores s = ablationScores.get(a.getKey());
                    s.questions++;
                    for (int b : BUDGETS) {
                        AssembledContext context = a.getValue().assemble(
                                new ContextService.Request(tenant, null, null, question, b), now);
                        s.add("context", String.valueOf(b), recall(evidence, included(context), tenant, turnTexts));
                        if (b == budget) {
                            s.add("context", "tokens", context.tokensUsed());
                            s.add("context", "date_tokens", dateTokens(context));
                        }
                    }
                }
            }
        }
        return new Result(byCategory, overall, ablationScores, latencies, malformed, skipped);
    }

    private static void add(List<Scores> into, String retriever, String measure, double value) {
        into.forEach(s -> s.add(retriever, measure, value));
    }

    /** What the context's date lines take of its tokens: what its items took beyond their texts. */
    private static int dateTokens(AssembledContext context) {
        return context.included().stream().mapToInt(i -> i.tokens() - i.item().tokens()).sum();
    }

    private static List<ContextItem> included(AssembledContext context) {
        return context.included().stream().map(AssembledContext.Included::item).toList();
    }

    /** A ranked list cut to a budget the way a naive context would: in rank order, every item that still fits. */
    private static List<ContextItem> withinBudget(List<ContextItem> ranked, int budget) {
        List<ContextItem> kept = new ArrayList<>();
        int left = budget;
        for (ContextItem r : ranked) {
            if (r.tokens() <= left) {
                kept.add(r);
                left -= r.tokens();
            }
        }
        return kept;
    }

    private static double recall(EvidenceRecall.Evidence evidence, List<ContextItem> items, String tenant,
                                 Map<String, String> turnTexts) {
        List<Retrieved> retrieved = new ArrayList<>();
        for (ContextItem i : items) {
            if (i.type() == RecordType.SUMMARY) {
                retrieved.add(Retrieved.summary(i.text()));
            } else if (i.type() == RecordType.TURN && i.id().startsWith(tenant + "/")) {
                // turn ids are tenant/session/turn_id, and the turn id is LoCoMo's dialogue id
                retrieved.add(Retrieved.turn(i.id().substring(i.id().lastIndexOf('/') + 1), i.text()));
            }
        }
        return EvidenceRecall.recall(evidence.ids(), retrieved, turnTexts);
    }

    private void report(PrintWriter out, Result r, String model, int turns, double ingestSeconds) throws Exception {
        long[] sorted = r.contextNanos().stream().mapToLong(Long::longValue).sorted().toArray();
        double p50 = percentileMillis(sorted, 0.50);
        double p95 = percentileMillis(sorted, 0.95);
        if (json) {
            ObjectNode root = ResponsesJson.JSON.createObjectNode();
            root.put("embedding_model", model).put("k", k).put("budget", budget).put("questions", r.overall().questions)
                    .put("malformed_evidence_ids", r.malformed()).put("questions_without_evidence", r.skipped())
                    .put("turns", turns).put("pipeline_seconds", ingestSeconds)
                    .put("context_latency_p50_ms", p50).put("context_latency_p95_ms", p95);
            root.set("overall", scoresJson(r.overall(), RETRIEVERS));
            ObjectNode cats = root.putObject("per_category");
            r.byCategory().forEach((cat, s) -> cats.set(String.valueOf(cat), scoresJson(s, RETRIEVERS)));
            ObjectNode ablations = root.putObject("ablations");
            r.ablations().forEach((name, s) -> ablations.set(name, scoresJson(s, List.of("context")).get("context")));
            out.println(ResponsesJson.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root));
            return;
        }
        out.printf(Locale.ROOT, "%d questions (categories 1-4), %d malformed evidence ids tolerated, %d without evidence%n",
                r.overall().questions, r.malformed(), r.skipped());
        out.printf(Locale.ROOT, "%d turns through the pipeline (%s) in %.1f s; context at %d tokens: latency p50 %.1f ms, p95 %.1f ms%n%n",
                turns, model, ingestSeconds, budget, p50, p95);
        table(out, "all", r.overall(), RETRIEVERS);
        for (Map.Entry<Integer, Scores> e : r.byCategory().entrySet()) {
            table(out, "category " + e.getKey(), e.getValue(), RETRIEVERS);
        }
        out.printf(Locale.ROOT, "context ablations (all questions)%n  %-16s %9s %9s %9s %9s%n", "", "@500 tok", "@1000 tok",
                "@2000 tok", "tokens");
        r.ablations().forEach((name, s) -> out.printf(Locale.ROOT, "  %-16s %9.3f %9.3f %9.3f %9.0f%n", name,
                s.mean("context", "500"), s.mean("context", "1000"), s.mean("context", "2000"), s.mean("context", "tokens")));
    }

    private static double percentileMillis(long[] sorted, double p) {
        return sorted.length == 0 ? 0 : sorted[(int) Math.ceil(p * sorted.length) - 1] / 1e6;
    }

    private ObjectNode scoresJson(Scores s, List<String> retrievers) {
        ObjectNode node = ResponsesJson.JSON.createObjectNode();
        node.put("questions", s.questions);
        for (String r : retrievers) {
            ObjectNode o = node.putObject(r);
            if (!r.equals("context")) {
                o.put("recall_at_k", s.mean(r, "k"));
            }
            for (int b : BUDGETS) {
                o.put("within_" + b, s.mean(r, String.valueOf(b)));
            }
            o.put("mean_tokens", s.mean(r, "tokens"));
            if (r.equals("context")) {
                o.put("mean_date_tokens", s.mean(r, "date_tokens"));
            }
        }
        return node;
    }

    private void table(PrintWriter out, String title, Scores s, List<String> retrievers) {
        out.printf(Locale.ROOT, "%s (%d questions)%n  %-16s %9s %9s %9s %9s %9s%n", title, s.questions, "retriever",
                "recall@" + k, "@500 tok", "@1000 tok", "@2000 tok", "tokens");
        for (String r : retrievers) {
            out.printf(Locale.ROOT, "  %-16s %9s %9.3f %9.3f %9.3f %9.0f%n", r,
                    r.equals("context") ? "-" : String.format(Locale.ROOT, "%.3f", s.mean(r, "k")),
                    s.mean(r, "500"), s.mean(r, "1000"), s.mean(r, "2000"), s.mean(r, "tokens"));
        }
        out.println();
    }
}
