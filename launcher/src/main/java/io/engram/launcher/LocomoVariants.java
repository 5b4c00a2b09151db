package io.engram.launcher;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.launcher.LocomoTally.Scores;
import io.engram.model.embed.Embedder;
import io.engram.model.eval.LeaveOneOut;
import io.engram.model.partition.TierBudget;
import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.ContextItem;
import io.engram.model.retrieval.ContinuityTail;
import io.engram.model.retrieval.LearnedRelevance;
import io.engram.model.retrieval.LearnedTurnRelevance;
import io.engram.model.retrieval.MemoryScore;
import io.engram.model.retrieval.NeighbourTurns;
import io.engram.model.retrieval.RelevanceFeedback;
import io.engram.model.retrieval.RelevanceFloor;
import io.engram.model.retrieval.SessionDiversity;
import io.engram.model.retrieval.SessionFocus;
import io.engram.model.retrieval.SpeakerMatch;
import io.engram.model.retrieval.WindowTurnFocus;
import io.engram.retrieval.ContextOptions;
import io.engram.retrieval.ContextService;
import io.engram.retrieval.HybridRetriever;
import io.engram.service.ResponsesJson;
import io.engram.store.MemoryReader;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The retrieval and context configurations compared on LoCoMo, and the leave-one-conversation-out choice among
 * them: for each conversation, the configuration with the best mean of recall within 500 and within 2,000 tokens
 * on the other conversations, scored on it. The same for the retrievers at top K. The default is listed first.
 */
final class LocomoVariants {

    /** The budgets a configuration is chosen by: the issue's two bars. */
    static final int[] BUDGETS = LocomoTally.LOSS_BUDGETS;

    /** One configuration of the read path. */
    record Variant(HybridRetriever.Options retrieval, ContextOptions context) {
    }

    /**
     * The read path as issue 18 left it, written out, so that every other configuration below stays what its name
     * says whatever the defaults become: RRF k = 60 over 50 candidates from each retriever, re-scored; 50
     * candidates for the context, neighbours at radius 1 with weight 0.8, no session reweighting or feedback.
     */
    static final Variant ISSUE_18 = new Variant(
            new HybridRetriever.Options(50, 60, HybridRetriever.Ranking.RESCORED, MemoryScore.DEFAULT, RelevanceFeedback.NONE,
                    LearnedRelevance.NONE),
            new ContextOptions(TierBudget.DEFAULT_ALPHA2, ContinuityTail.DEFAULT, ContextService.CONTEXT_TYPES, 50,
                    new NeighbourTurns(1, 0.8), 0.8, new RelevanceFloor(0.9), SessionFocus.NONE, SessionDiversity.NONE, false,
                    SpeakerMatch.NONE, WindowTurnFocus.NONE, null));

    /** The product's defaults first, then issue 18's read path, then each change to it. */
    static Map<String, Variant> all() {
        Map<String, Variant> v = new LinkedHashMap<>();
        HybridRetriever.Options r = ISSUE_18.retrieval();
        ContextOptions c = ISSUE_18.context();
        v.put("default", new Variant(HybridRetriever.Options.FOR_CONTEXT, ContextOptions.DEFAULT));
        // the read path before the learned scores: re-scored RRF k = 20, what hits bring scored from their score
        HybridRetriever.Options rescored = HybridRetriever.Options.DEFAULT.withRrfK(20);
        ContextOptions handScored = ContextOptions.DEFAULT.handScored();
        v.put("hand_scored", new Variant(rescored, handScored));
        v.put("learned_hits", new Variant(HybridRetriever.Options.FOR_CONTEXT, handScored));
        v.put("learned_hits_no_neighbours", new Variant(HybridRetriever.Options.FOR_CONTEXT, handScored.withoutNeighbours()));
        v.put("no_windows", new Variant(rescored, handScored.withWindows(false)));
        v.put("windows_all_turns", new Variant(rescored, handScored.withWindowFocus(WindowTurnFocus.NONE)));
        v.put("window_focus_3", new Variant(rescored, handScored.withWindowFocus(new WindowTurnFocus(3, 0.1))));
        v.put("window_focus_2_0.1", new Variant(rescored, handScored.withWindowFocus(new WindowTurnFocus(2, 0.1))));
        v.put("windows_no_neighbours", new Variant(rescored, handScored.withoutNeighbours()));
        for (double weight : new double[] {0.2, 0.5}) {
            v.put("speakers_" + weight, new Variant(rescored, handScored.withSpeakers(new SpeakerMatch(weight))));
        }
        v.put("issue_18", ISSUE_18);
        v.put("no_neighbours", new Variant(r, c.withoutNeighbours()));
        v.put("100_candidates", new Variant(r, c.withCandidates(100)));
        v.put("neighbours_r2", new Variant(r, c.withNeighbours(new NeighbourTurns(2, 0.8))));
        v.put("rrf_k20", new Variant(r.withRrfK(20), c));
        for (double decay : new double[] {0.9, 0.8, 0.65, 0.5}) {
            v.put("diversity_" + decay, new Variant(r, c.withDiversity(new SessionDiversity(decay))));
        }
        v.put("diversity_0.8_100", new Variant(r, c.withDiversity(new SessionDiversity(0.8)).withCandidates(100)));
        for (double weight : new double[] {0.3, 0.6}) {
            v.put("focus_" + weight, new Variant(r, c.withFocus(new SessionFocus(weight))));
        }
        v.put("feedback_3_0.5", new Variant(r.withFeedback(new RelevanceFeedback(3, 0.5)), c));
        v.put("feedback_5_1.0", new Variant(r.withFeedback(new RelevanceFeedback(5, 1.0)), c));
        v.put("fused_ranking", new Variant(r.withRanking(HybridRetriever.Ranking.FUSED), c));
        v.put("no_recency", new Variant(r.withScore(new MemoryScore(0.7, 0, 0.1)), c));
        v.put("depth_100", new Variant(r.withCandidateDepth(100), c));
        v.put("depth_200", new Variant(r.withCandidateDepth(200), c));
        v.put("depth_100_rrf_k20", new Variant(r.withCandidateDepth(100).withRrfK(20), c));
        v.put("rrf_k20_neighbours_r2", new Variant(r.withRrfK(20), c.withNeighbours(new NeighbourTurns(2, 0.8))));
        v.put("depth_100_neighbours_r2", new Variant(r.withCandidateDepth(100), c.withNeighbours(new NeighbourTurns(2, 0.8))));
        v.put("depth_100_rrf_k20_neighbours_r2", new Variant(r.withCandidateDepth(100).withRrfK(20),
                c.withNeighbours(new NeighbourTurns(2, 0.8))));
        return v;
    }

    /** The context service of the configuration {@code name} of {@link #all()}, over {@code store}. */
    static ContextService service(String name, MemoryReader store, Embedder embedder) {
        Variant v = all().get(name);
        if (v == null) {
            throw new IllegalArgumentException("no configuration " + name + "; there are " + all().keySet());
        }
        return new ContextService(store, new HybridRetriever(store, embedder, v.retrieval()), v.context());
    }

    /**
     * {@code options}, for a question of {@code conversation}: when they rank by the product's learned weights,
     * ranking instead by the weights fitted without that conversation ({@code learned-relevance/without-<id>.tsv}
     * beside this class, written by tools/fit-learned-relevance), so that no conversation is scored by weights
     * fitted on its own evidence. A conversation no fold left out was not fitted on: the product's weights stand.
     */
    static HybridRetriever.Options heldOut(HybridRetriever.Options options, String conversation) {
        if (options.ranking() != HybridRetriever.Ranking.LEARNED || !options.learned().equals(LearnedRelevance.DEFAULT)) {
            return options;
        }
        return LearnedRelevance.resource(LocomoVariants.class, "learned-relevance/without-" + conversation + ".tsv")
                .map(options::learnedBy).orElse(options);
    }

    /**
     * {@code options}, for a question of {@code conversation}: when they score every candidate by the product's
     * learned weights, by those fitted without that conversation ({@code learned-turn-relevance/without-<id>.tsv}), as
     * {@link #heldOut(HybridRetriever.Options, String)} does for the hits.
     */
    static ContextOptions heldOut(ContextOptions options, String conversation) {
        if (!LearnedTurnRelevance.DEFAULT.equals(options.turnRelevance())) {
            return options;
        }
        return LearnedTurnRelevance.resource(LocomoVariants.class, "learned-turn-relevance/without-" + conversation + ".tsv")
                .map(options::withTurnRelevance).orElse(options);
    }

    private final MemoryReader store;
    private final Embedder embedder;
    /** variant → conversation → its context service, ranking by weights not fitted on it */
    private final Map<String, Map<String, ContextService>> services = new LinkedHashMap<>();
    /** variant → conversation → scores */
    private final Map<String, Map<String, Scores>> scores = new LinkedHashMap<>();

    /** @param names the configurations of {@link #all()} to compare, or null for all of them */
    LocomoVariants(MemoryReader store, Embedder embedder, List<String> names) {
        this.store = store;
        this.embedder = embedder;
        List<String> compared = names == null ? List.copyOf(all().keySet()) : names;
        compared.forEach(name -> {
            if (!all().containsKey(name)) {
                throw new IllegalArgumentException("no configuration " + name + "; there are " + all().keySet());
            }
            services.put(name, new LinkedHashMap<>());
            scores.put(name, new LinkedHashMap<>());
        });
    }

    private ContextService service(String name, String conversation) {
        return services.get(name).computeIfAbsent(conversation, c -> {
            Variant v = all().get(name);
            return new ContextService(store, new HybridRetriever(store, embedder, heldOut(v.retrieval(), c)),
                    heldOut(v.context(), c));
        });
    }

    /**
     * Every configuration's context for one question, at each budget, scored by {@code recall}; and its ranking at
     * top {@code k}: the first k memories of the largest context, in score order.
     */
    void ask(String conversation, String tenant, String question, Instant now, int k,
             ToDoubleFunction<List<ContextItem>> recall) {
        services.keySet().forEach(name -> {
            ContextService service = service(name, conversation);
            Scores s = scores.get(name).computeIfAbsent(conversation, c -> new Scores());
            s.questions++;
            for (int b : BUDGETS) {
                List<ContextItem> memories = service.assemble(new ContextService.Request(tenant, null, null, question, b), now)
                        .included().stream().filter(i -> i.section() == AssembledContext.Section.MEMORIES)
                        .map(AssembledContext.Included::item).toList();
                s.add("context", String.valueOf(b), recall.applyAsDouble(memories));
                if (b == BUDGETS[BUDGETS.length - 1]) {
                    s.add("context", "k", recall.applyAsDouble(memories.subList(0, Math.min(k, memories.size()))));
                }
            }
        });
    }

    /** The held-out scores of the choices made without each conversation, and every configuration's own. */
    ObjectNode json(Map<String, Scores> retrieversByConversation, List<String> retrievers) {
        ObjectNode root = ResponsesJson.JSON.createObjectNode();
        ObjectNode context = root.putObject("context");
        ArrayNode folds = context.putArray("folds");
        double[] heldOut = new double[BUDGETS.length];
        List<LeaveOneOut.Fold> chosen = LeaveOneOut.folds(criterion());
        for (LeaveOneOut.Fold f : chosen) {
            ObjectNode fold = folds.addObject().put("held_out", f.heldOut()).put("chosen", f.chosen());
            for (int i = 0; i < BUDGETS.length; i++) {
                double held = mean(f.chosen(), f.heldOut(), BUDGETS[i]);
                fold.put("within_" + BUDGETS[i], held).put("default_within_" + BUDGETS[i], mean("default", f.heldOut(), BUDGETS[i]));
                heldOut[i] += held / chosen.size();
            }
        }
        for (int i = 0; i < BUDGETS.length; i++) {
            context.put("within_" + BUDGETS[i], heldOut[i]);
        }
        ObjectNode variants = root.putObject("variants");
        scores.forEach((name, byConversation) -> {
            ObjectNode v = variants.putObject(name);
            byConversation.forEach((conversation, s) -> {
                ObjectNode c = v.putObject(conversation);
                for (int b : BUDGETS) {
                    c.put("within_" + b, s.mean("context", String.valueOf(b)));
                }
                c.put("recall_at_k", s.mean("context", "k"));
            });
        });
        root.set("retriever", retrieverJson(retrieversByConversation, retrievers));
        return root;
    }

    /** The ranked lists, then each configuration's context ranking ({@code context:<name>}), at top K. */
    private ObjectNode retrieverJson(Map<String, Scores> byConversation, List<String> retrievers) {
        Map<String, Map<String, Double>> atK = new LinkedHashMap<>();
        for (String r : retrievers) {
            Map<String, Double> perConversation = new LinkedHashMap<>();
            byConversation.forEach((conversation, s) -> perConversation.put(conversation, s.mean(r, "k")));
            atK.put(r, perConversation);
        }
        scores.forEach((name, perVariant) -> {
            Map<String, Double> perConversation = new LinkedHashMap<>();
            perVariant.forEach((conversation, s) -> perConversation.put(conversation, s.mean("context", "k")));
            atK.put("context:" + name, perConversation);
        });
        ObjectNode node = ResponsesJson.JSON.createObjectNode();
        ArrayNode folds = node.putArray("folds");
        double mean = 0;
        List<LeaveOneOut.Fold> chosen = LeaveOneOut.folds(atK);
        for (LeaveOneOut.Fold f : chosen) {
            double held = atK.get(f.chosen()).get(f.heldOut());
            folds.addObject().put("held_out", f.heldOut()).put("chosen", f.chosen()).put("recall_at_k", held);
            mean += held / chosen.size();
        }
        node.put("recall_at_k", mean);
        return node;
    }

    /** Per variant and conversation: the mean of recall within each budget. */
    private Map<String, Map<String, Double>> criterion() {
        Map<String, Map<String, Double>> criterion = new LinkedHashMap<>();
        scores.forEach((name, byConversation) -> {
            Map<String, Double> c = new LinkedHashMap<>();
            byConversation.forEach((conversation, s) -> {
                double sum = 0;
                for (int b : BUDGETS) {
                    sum += s.mean("context", String.valueOf(b));
                }
                c.put(conversation, sum / BUDGETS.length);
            });
            criterion.put(name, c);
        });
        return criterion;
    }

    private double mean(String variant, String conversation, int budget) {
        return scores.get(variant).get(conversation).mean("context", String.valueOf(budget));
    }

    /** The leave-one-out results as text: each configuration per conversation, then the folds. */
    static void print(PrintWriter out, ObjectNode loo) {
        out.printf(Locale.ROOT, "configurations per conversation (context within 500 / 2000 tokens / its first K memories)%n");
        loo.path("variants").fields().forEachRemaining(v -> {
            out.printf(Locale.ROOT, "  %-26s", v.getKey());
            v.getValue().fields().forEachRemaining(c -> out.printf(Locale.ROOT, "  %s %.3f/%.3f/%.3f", c.getKey(),
                    c.getValue().path("within_500").asDouble(), c.getValue().path("within_2000").asDouble(),
                    c.getValue().path("recall_at_k").asDouble()));
            out.println();
        });
        out.printf(Locale.ROOT, "%nleave one conversation out: chosen on the other three, measured on it%n");
        loo.at("/context/folds").forEach(f -> out.printf(Locale.ROOT,
                "  context   %-8s chose %-26s within 500 %.3f (default %.3f), within 2000 %.3f (default %.3f)%n",
                f.path("held_out").asText(), f.path("chosen").asText(), f.path("within_500").asDouble(),
                f.path("default_within_500").asDouble(), f.path("within_2000").asDouble(),
                f.path("default_within_2000").asDouble()));
        loo.at("/retriever/folds").forEach(f -> out.printf(Locale.ROOT, "  retriever %-8s chose %-26s recall@k %.3f%n",
                f.path("held_out").asText(), f.path("chosen").asText(), f.path("recall_at_k").asDouble()));
        out.printf(Locale.ROOT, "  mean of the held-out: context within 500 %.3f, within 2000 %.3f; retriever recall@k %.3f%n%n",
                loo.at("/context/within_500").asDouble(), loo.at("/context/within_2000").asDouble(),
                loo.at("/retriever/recall_at_k").asDouble());
    }
}
