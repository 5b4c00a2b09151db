package io.engram.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.client.EngramProducer;
import io.engram.client.KafkaClients;
import io.engram.client.Payload;
import io.engram.client.PayloadValidator;
import io.engram.jobs.EngramSetup;
import io.engram.jobs.PipelineConfig;
import io.engram.launcher.LocomoTally.Scores;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.eval.EvidenceLoss;
import io.engram.model.eval.EvidenceRecall;
import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.ContextItem;
import io.engram.model.retrieval.RelevanceFloor;
import io.engram.retrieval.ContextOptions;
import io.engram.retrieval.ContextService;
import io.engram.retrieval.HybridRetriever;
import io.engram.retrieval.Retrieval;
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
import java.util.Set;
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

    @Option(names = "--vector-encoding", paramLabel = "NAME", description = "The index's vector encoding, float or sq (default: the pipeline's).")
    String vectorEncoding;

    @Option(names = "--config", converter = ExistingPath.class, paramLabel = "FILE",
            description = "Run against the Kafka, OpenSearch and PostgreSQL of this pipeline properties file instead of"
                    + " an embedded stack (a new index engram-memories-eval-<time> is written).")
    Path config;

    @Option(names = "--max-questions", paramLabel = "N", description = "Evaluate at most N questions per conversation.")
    int maxQuestions = Integer.MAX_VALUE;

    @Option(names = "--leave-one-out",
            description = "Also compare the read path's configurations: each chosen on three conversations, measured on the fourth.")
    boolean leaveOneOut;

    @Option(names = "--configurations", split = ",", paramLabel = "NAME",
            description = "With --leave-one-out, compare only these configurations of its list (default: all).")
    List<String> configurations;

    @Option(names = "--latency-against", paramLabel = "NAME",
            description = "Also time the context of this configuration of --leave-one-out's list, interleaved with the default's.")
    String latencyAgainst;

    @Option(names = "--features", paramLabel = "FILE",
            description = "Only write each question's candidates, their learned-ranking features and the evidence they hold"
                    + " to FILE as JSON lines (what tools/fit-learned-relevance.py fits), instead of the report.")
    Path features;

    /** How deep the retrievers look before a missed turn counts as not retrieved at all. */
    static final int DEEP = 200;

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
            Optional.ofNullable(vectorEncoding).ifPresent(e -> p.setProperty("opensearch.vector-encoding", e));
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
                if (features != null) {
                    writeFeatures(retrieval, conversations, progress);
                    return 0;
                }
                Result result = evaluate(retrieval, conversations, progress);
                new LocomoReport(k, budget, json).print(out, result, pipeline.embeddingModel().id(), turns, ingestSeconds);
            }
        } finally {
            stack.ifPresent(EmbeddedStack::close);
        }
        out.flush();
        return 0;
    }

    private void writeFeatures(Retrieval retrieval, List<LocomoData.Conversation> conversations, PrintWriter progress)
            throws Exception {
        try (LocomoFeatures writer = new LocomoFeatures(features, retrieval)) {
            for (LocomoData.Conversation c : conversations) {
                Instant now = c.turns().get(c.turns().size() - 1).ts().plus(Duration.ofDays(1));
                for (JsonNode qa : LocomoData.questions(data, c.sampleId())) {
                    int category = qa.path("category").asInt();
                    List<String> raw = new ArrayList<>();
                    qa.path("evidence").forEach(e -> raw.add(e.asText()));
                    Set<String> evidence = EvidenceRecall.parse(raw).ids();
                    if (category >= 1 && category <= 4 && !evidence.isEmpty()) {
                        writer.write(c.sampleId(), category, tenant(c), qa.path("question").asText(), evidence, now);
                    }
                }
            }
            say(progress, "wrote the candidates of " + writer.questions() + " questions to " + features);
        }
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
    static int produce(KafkaClients kafka, List<LocomoData.Conversation> conversations) {
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
    record Result(LocomoTally tally, Map<String, Scores> ablations, Optional<LocomoVariants> variants,
                          List<Long> contextNanos, List<Long> againstNanos, int malformed, int skipped) {
    }

    /** The context ablations: the full assembly with one technique switched off. */
    private static Map<String, ContextOptions> ablations() {
        Map<String, ContextOptions> a = new LinkedHashMap<>();
        ContextOptions all = ContextOptions.DEFAULT;
        a.put(NO_NEIGHBOURS, all.withoutNeighbours());
        a.put("keep_duplicates", all.keepingDuplicates());
        a.put("no_floor", all.withFloor(RelevanceFloor.NONE));
        a.put("with_summaries", all.withMemoryTypes(ContextService.MEMORY_TYPES));
        a.put("100_candidates", all.withCandidates(100));
        return a;
    }

    private static final String NO_NEIGHBOURS = "no_neighbours";

    /** One question as the loop asks it. */
    private record Question(String tenant, String conversation, int category, String text, EvidenceRecall.Evidence evidence,
                            Map<String, String> turnTexts, Instant now) {
        double recall(List<ContextItem> items) {
            return EvidenceRecall.recall(evidence.ids(), LocomoItems.retrieved(items, tenant), turnTexts);
        }
    }

    private Result evaluate(Retrieval retrieval, List<LocomoData.Conversation> conversations, PrintWriter progress)
            throws Exception {
        LocomoTally tally = new LocomoTally();
        Map<String, Scores> ablationScores = new LinkedHashMap<>();
        Map<String, ContextService> ablated = new LinkedHashMap<>();
        // the default context reads the store (its latency is measured); the others ask the same searches again
        MemoizedReader memoized = new MemoizedReader(retrieval.store());
        ablations().keySet().forEach(name -> ablationScores.put(name, new Scores()));
        Optional<LocomoVariants> variants = leaveOneOut
                ? Optional.of(new LocomoVariants(memoized, retrieval.embedder(), configurations)) : Optional.empty();
        List<Long> latencies = new ArrayList<>();
        List<Long> againstLatencies = new ArrayList<>();
        Optional<ContextService> against = Optional.ofNullable(latencyAgainst).map(name -> LocomoVariants.service(name,
                retrieval.store(), retrieval.embedder()));
        int malformed = 0;
        int skipped = 0;
        for (LocomoData.Conversation c : conversations) {
            say(progress, "asking the questions of " + c.sampleId() + " ...");
            Map<String, String> turnTexts = new HashMap<>();
            c.turns().forEach(t -> turnTexts.put(t.diaId(), text(t)));
            Instant now = c.turns().get(c.turns().size() - 1).ts().plus(Duration.ofDays(1));
            // the product's read path and its ablations, ranking by weights not fitted on this conversation
            HybridRetriever.Options heldOut = LocomoVariants.heldOut(HybridRetriever.Options.FOR_CONTEXT, c.sampleId());
            ContextService context = new ContextService(retrieval.store(),
                    new HybridRetriever(retrieval.store(), retrieval.embedder(), heldOut),
                    LocomoVariants.heldOut(ContextOptions.DEFAULT, c.sampleId()));
            HybridRetriever retriever = new HybridRetriever(memoized, retrieval.embedder(), heldOut);
            ablations().forEach((name, options) -> ablated.put(name, new ContextService(memoized, retriever,
                    LocomoVariants.heldOut(options, c.sampleId()))));
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
                memoized.forget();
                Question q = new Question(tenant(c), c.sampleId(), category, qa.path("question").asText(), evidence,
                        turnTexts, now);
                List<LocomoTally.Group> groups = tally.groupsOf(category, c.sampleId());
                scoreRetrievers(retrieval, q, groups);
                Map<Integer, AssembledContext> contexts = new HashMap<>();
                for (int b : BUDGETS) {
                    // the other configuration first every other question, so neither always meets warm caches
                    boolean otherFirst = b == budget && against.isPresent() && asked % 2 == 0;
                    if (otherFirst) {
                        timed(against.get(), request(q, b), now, againstLatencies);
                    }
                    AssembledContext assembled = timed(context, request(q, b), now, latencies);
                    if (b == budget) {
                        add(groups, "context", "tokens", assembled.tokensUsed());
                        add(groups, "context", "date_tokens", dateTokens(assembled));
                        if (against.isPresent() && !otherFirst) {
                            timed(against.get(), request(q, b), now, againstLatencies);
                        }
                    } else {
                        latencies.remove(latencies.size() - 1);
                    }
                    contexts.put(b, assembled);
                    add(groups, "context", String.valueOf(b), q.recall(LocomoItems.included(assembled)));
                }
                Map<Integer, AssembledContext> withoutNeighbours = new HashMap<>();
                for (Map.Entry<String, ContextService> a : ablated.entrySet()) {
                    Scores s = ablationScores.get(a.getKey());
                    s.questions++;
                    for (int b : BUDGETS) {
                        AssembledContext ablatedContext = a.getValue().assemble(request(q, b), now);
                        s.add("context", String.valueOf(b), q.recall(LocomoItems.included(ablatedContext)));
                        if (b == budget) {
                            s.add("context", "tokens", ablatedContext.tokensUsed());
                            s.add("context", "date_tokens", dateTokens(ablatedContext));
                        }
                        if (a.getKey().equals(NO_NEIGHBOURS)) {
                            withoutNeighbours.put(b, ablatedContext);
                        }
                    }
                }
                tallyLosses(retrieval, q, groups, contexts, withoutNeighbours);
                variants.ifPresent(v -> v.ask(q.conversation(), q.tenant(), q.text(), q.now(), k, q::recall));
            }
        }
        return new Result(tally, ablationScores, variants, latencies, againstLatencies, malformed, skipped);
    }

    private static AssembledContext timed(ContextService service, ContextService.Request request, Instant now, List<Long> into) {
        long start = System.nanoTime();
        AssembledContext context = service.assemble(request, now);
        into.add(System.nanoTime() - start);
        return context;
    }

    private static ContextService.Request request(Question q, int budget) {
        return new ContextService.Request(q.tenant(), null, null, q.text(), budget);
    }

    /** The four ranked lists at top K and cut to each budget the naive way. */
    private void scoreRetrievers(Retrieval retrieval, Question q, List<LocomoTally.Group> groups) {
        int depth = ContextOptions.DEFAULT.candidates();
        Map<String, List<ContextItem>> ranked = new LinkedHashMap<>();
        ranked.put("bm25", retrieval.store().bm25(q.tenant(), q.text(), depth, ContextService.MEMORY_TYPES).stream()
                .map(h -> ContextItem.of(h.record(), h.score())).toList());
        ranked.put("vector", retrieval.store().knn(q.tenant(), retrieval.embedder().embedQuery(q.text()).vector(),
                depth, ContextService.MEMORY_TYPES).stream().map(h -> ContextItem.of(h.record(), h.score())).toList());
        ranked.put("fused", items(fused(retrieval, depth).search(query(q, depth))));
        ranked.put("rescored", items(retrieval.retriever().search(query(q, depth))));
        for (Map.Entry<String, List<ContextItem>> r : ranked.entrySet()) {
            List<ContextItem> top = r.getValue().subList(0, Math.min(k, r.getValue().size()));
            add(groups, r.getKey(), "k", q.recall(top));
            for (int b : BUDGETS) {
                List<ContextItem> within = LocomoItems.withinBudget(r.getValue(), b);
                add(groups, r.getKey(), String.valueOf(b), q.recall(within));
                if (b == budget) {
                    add(groups, r.getKey(), "tokens", within.stream().mapToInt(ContextItem::tokens).sum());
                }
            }
        }
    }

    private static HybridRetriever fused(Retrieval retrieval, int depth) {
        return new HybridRetriever(retrieval.store(), retrieval.embedder(), HybridRetriever.Options.DEFAULT
                .withRanking(HybridRetriever.Ranking.FUSED).withCandidateDepth(depth));
    }

    /** What the context's date lines take of its tokens: what its items took beyond their texts. */
    private static int dateTokens(AssembledContext context) {
        return context.included().stream().mapToInt(i -> i.tokens() - i.item().tokens()).sum();
    }

    private static HybridRetriever.Query query(Question q, int depth) {
        return new HybridRetriever.Query(q.tenant(), q.text(), null, null, ContextService.MEMORY_TYPES, depth, q.now());
    }

    private static List<ContextItem> items(List<HybridRetriever.Result> results) {
        return results.stream().map(h -> ContextItem.of(h.record(), h.score())).toList();
    }

    /** Where each evidence turn the default context missed was lost ({@link EvidenceLoss}), at the bars' budgets. */
    private static void tallyLosses(Retrieval retrieval, Question q, List<LocomoTally.Group> groups,
                                    Map<Integer, AssembledContext> contexts, Map<Integer, AssembledContext> withoutNeighbours) {
        Set<String> deep = LocomoItems.dialogueIds(items(fused(retrieval, DEEP).search(query(q, DEEP))), q.tenant());
        for (int b : LocomoTally.LOSS_BUDGETS) {
            AssembledContext context = contexts.get(b);
            Set<String> competed = LocomoItems.dialogueIds(LocomoItems.included(context), q.tenant());
            context.excluded().stream().filter(e -> !e.reason().contains(ContextService.UNRELATED))
                    .forEach(e -> competed.addAll(LocomoItems.dialogueIds(List.of(e.item()), q.tenant())));
            Set<String> bare = LocomoItems.dialogueIds(LocomoItems.included(withoutNeighbours.get(b)), q.tenant());
            List<EvidenceLoss.Bucket> lost = EvidenceRecall.missing(q.evidence().ids(), LocomoItems.retrieved(LocomoItems.included(context), q.tenant()),
                    q.turnTexts()).stream().map(id -> EvidenceLoss.of(deep.contains(id), competed.contains(id), bare.contains(id)))
                    .toList();
            groups.forEach(g -> g.losses(b).add(q.evidence().ids().size(), lost));
        }
    }

    private static void add(List<LocomoTally.Group> into, String retriever, String measure, double value) {
        into.forEach(g -> g.scores().add(retriever, measure, value));
    }
}
