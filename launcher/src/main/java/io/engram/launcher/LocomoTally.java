package io.engram.launcher;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.model.eval.EvidenceLoss;
import io.engram.service.ResponsesJson;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the LoCoMo evaluation adds up, by group (all questions, a category, a conversation): the mean of each
 * measure per retriever, and where the context lost the evidence it missed ({@link EvidenceLoss}) per budget.
 */
final class LocomoTally {

    /** The budgets whose losses are reported: the two bars. */
    static final int[] LOSS_BUDGETS = {500, 2000};

    /** Sums of one measure per retriever. */
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

    /** One group's scores and losses. */
    record Group(Scores scores, Map<Integer, EvidenceLoss.Tally> losses) {
        Group() {
            this(new Scores(), new LinkedHashMap<>());
        }

        EvidenceLoss.Tally losses(int budget) {
            return losses.computeIfAbsent(budget, b -> new EvidenceLoss.Tally());
        }
    }

    final Group overall = new Group();
    final Map<Integer, Group> byCategory = new LinkedHashMap<>();
    final Map<String, Group> byConversation = new LinkedHashMap<>();

    /** The groups a question of {@code category} in {@code conversation} counts in, its question counted. */
    List<Group> groupsOf(int category, String conversation) {
        List<Group> groups = List.of(overall, byCategory.computeIfAbsent(category, c -> new Group()),
                byConversation.computeIfAbsent(conversation, c -> new Group()));
        groups.forEach(g -> g.scores().questions++);
        return groups;
    }

    static ObjectNode lossesJson(Group g) {
        ObjectNode node = ResponsesJson.JSON.createObjectNode();
        g.losses().forEach((budget, tally) -> {
            ObjectNode b = node.putObject("within_" + budget);
            for (EvidenceLoss.Bucket bucket : EvidenceLoss.Bucket.values()) {
                b.put(bucket.name().toLowerCase(Locale.ROOT), tally.share(bucket));
            }
        });
        return node;
    }

    /** One line per budget: the share of evidence each bucket lost. */
    static void printLosses(PrintWriter out, String title, Group g) {
        g.losses().forEach((budget, tally) -> {
            out.printf(Locale.ROOT, "  %-22s @%-5d", title, budget);
            for (EvidenceLoss.Bucket bucket : EvidenceLoss.Bucket.values()) {
                out.printf(Locale.ROOT, " %9.3f", tally.share(bucket));
            }
            out.println();
        });
    }

    void printLosses(PrintWriter out) {
        out.printf(Locale.ROOT, "where the context lost the evidence it missed (share of evidence)%n  %-29s %9s %9s %9s %9s%n",
                "", "not_retr", "below_cut", "budget", "displaced");
        printLosses(out, "all", overall);
        byCategory.forEach((c, g) -> printLosses(out, "category " + c, g));
        byConversation.forEach((c, g) -> printLosses(out, c, g));
        out.println();
    }
}
