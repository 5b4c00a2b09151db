package io.engram.model.eval;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Leave-one-group-out selection: for each group (a conversation), the choice (a configuration) with the best mean
 * score over the other groups, so that what it scores on the held-out group was not chosen on it. Ties go to the
 * choice listed first (the default, listed first, keeps its place unless another beats it).
 */
public final class LeaveOneOut {

    /** A held-out group, the choice made without it, and that choice's mean score on the others. */
    public record Fold(String heldOut, String chosen, double trainingScore) {
    }

    private LeaveOneOut() {
    }

    /**
     * @param scores choice → group → score, every choice scored on the same groups (at least two), in listing order
     */
    public static List<Fold> folds(Map<String, Map<String, Double>> scores) {
        if (scores.isEmpty()) {
            throw new IllegalArgumentException("nothing to choose from");
        }
        List<String> groups = List.copyOf(scores.values().iterator().next().keySet());
        if (groups.size() < 2) {
            throw new IllegalArgumentException("leaving one out needs at least two groups: " + groups);
        }
        scores.forEach((choice, byGroup) -> {
            if (!byGroup.keySet().equals(Set.copyOf(groups))) {
                throw new IllegalArgumentException(choice + " is scored on " + byGroup.keySet() + ", not " + groups);
            }
        });
        List<Fold> folds = new ArrayList<>();
        for (String heldOut : groups) {
            String best = null;
            double bestScore = Double.NEGATIVE_INFINITY;
            for (Map.Entry<String, Map<String, Double>> choice : scores.entrySet()) {
                double sum = 0;
                for (String g : groups) {
                    sum += g.equals(heldOut) ? 0 : choice.getValue().get(g);
                }
                double mean = sum / (groups.size() - 1);
                if (mean > bestScore) {
                    best = choice.getKey();
                    bestScore = mean;
                }
            }
            folds.add(new Fold(heldOut, best, bestScore));
        }
        return folds;
    }
}
