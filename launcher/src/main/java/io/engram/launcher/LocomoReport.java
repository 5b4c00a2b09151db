package io.engram.launcher;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.launcher.LocomoTally.Scores;
import io.engram.service.ResponsesJson;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The LoCoMo evaluation's results, as a table or as JSON. */
record LocomoReport(int k, int budget, boolean json) {

    private static final int[] BUDGETS = EvalLocomoCommand.BUDGETS;
    private static final List<String> RETRIEVERS = EvalLocomoCommand.RETRIEVERS;
    /** The ranked lists a leave-one-out run chooses the best of. */
    private static final List<String> RANKED = RETRIEVERS.subList(0, RETRIEVERS.size() - 1);

    void print(PrintWriter out, EvalLocomoCommand.Result r, String model, int turns, double ingestSeconds) throws Exception {
        long[] sorted = r.contextNanos().stream().mapToLong(Long::longValue).sorted().toArray();
        double p50 = percentileMillis(sorted, 0.50);
        double p95 = percentileMillis(sorted, 0.95);
        long[] other = r.againstNanos().stream().mapToLong(Long::longValue).sorted().toArray();
        LocomoTally t = r.tally();
        Map<String, Scores> perConversation = new LinkedHashMap<>();
        t.byConversation.forEach((c, g) -> perConversation.put(c, g.scores()));
        ObjectNode loo = r.variants().map(v -> v.json(perConversation, RANKED)).orElse(null);
        if (json) {
            ObjectNode root = ResponsesJson.JSON.createObjectNode();
            root.put("embedding_model", model).put("k", k).put("budget", budget).put("questions", t.overall.scores().questions)
                    .put("malformed_evidence_ids", r.malformed()).put("questions_without_evidence", r.skipped())
                    .put("turns", turns).put("pipeline_seconds", ingestSeconds)
                    .put("context_latency_p50_ms", p50).put("context_latency_p95_ms", p95);
            if (other.length > 0) {
                root.put("against_latency_p50_ms", percentileMillis(other, 0.50))
                        .put("against_latency_p95_ms", percentileMillis(other, 0.95));
            }
            root.set("overall", scoresJson(t.overall, RETRIEVERS));
            ObjectNode cats = root.putObject("per_category");
            t.byCategory.forEach((cat, g) -> cats.set(String.valueOf(cat), scoresJson(g, RETRIEVERS)));
            ObjectNode convs = root.putObject("per_conversation");
            t.byConversation.forEach((c, g) -> convs.set(c, scoresJson(g, RETRIEVERS)));
            ObjectNode ablations = root.putObject("ablations");
            r.ablations().forEach((name, s) -> ablations.set(name, scoresJson(s, List.of("context")).get("context")));
            if (loo != null) {
                root.set("leave_one_out", loo);
            }
            out.println(ResponsesJson.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root));
            return;
        }
        out.printf(Locale.ROOT, "%d questions (categories 1-4), %d malformed evidence ids tolerated, %d without evidence%n",
                t.overall.scores().questions, r.malformed(), r.skipped());
        out.printf(Locale.ROOT, "%d turns through the pipeline (%s) in %.1f s; context at %d tokens: latency p50 %.1f ms, p95 %.1f ms%n%n",
                turns, model, ingestSeconds, budget, p50, p95);
        if (other.length > 0) {
            out.printf(Locale.ROOT, "the other configuration's context, interleaved: latency p50 %.1f ms, p95 %.1f ms%n%n",
                    percentileMillis(other, 0.50), percentileMillis(other, 0.95));
        }
        table(out, "all", t.overall.scores());
        t.byCategory.forEach((cat, g) -> table(out, "category " + cat, g.scores()));
        t.byConversation.forEach((c, g) -> table(out, c, g.scores()));
        t.printLosses(out);
        out.printf(Locale.ROOT, "context ablations (all questions)%n  %-16s %9s %9s %9s %9s%n", "", "@500 tok", "@1000 tok",
                "@2000 tok", "tokens");
        r.ablations().forEach((name, s) -> out.printf(Locale.ROOT, "  %-16s %9.3f %9.3f %9.3f %9.0f%n", name,
                s.mean("context", "500"), s.mean("context", "1000"), s.mean("context", "2000"), s.mean("context", "tokens")));
        if (loo != null) {
            out.println();
            LocomoVariants.print(out, loo);
        }
    }

    private static double percentileMillis(long[] sorted, double p) {
        return sorted.length == 0 ? 0 : sorted[(int) Math.ceil(p * sorted.length) - 1] / 1e6;
    }

    private static ObjectNode scoresJson(LocomoTally.Group g, List<String> retrievers) {
        ObjectNode node = scoresJson(g.scores(), retrievers);
        node.set("losses", LocomoTally.lossesJson(g));
        return node;
    }

    private static ObjectNode scoresJson(Scores s, List<String> retrievers) {
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

    private void table(PrintWriter out, String title, Scores s) {
        out.printf(Locale.ROOT, "%s (%d questions)%n  %-16s %9s %9s %9s %9s %9s%n", title, s.questions, "retriever",
                "recall@" + k, "@500 tok", "@1000 tok", "@2000 tok", "tokens");
        for (String r : RETRIEVERS) {
            out.printf(Locale.ROOT, "  %-16s %9s %9.3f %9.3f %9.3f %9.0f%n", r,
                    r.equals("context") ? "-" : String.format(Locale.ROOT, "%.3f", s.mean(r, "k")),
                    s.mean(r, "500"), s.mean(r, "1000"), s.mean(r, "2000"), s.mean(r, "tokens"));
        }
        out.println();
    }
}
