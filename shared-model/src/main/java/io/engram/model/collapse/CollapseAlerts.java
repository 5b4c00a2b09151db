package io.engram.model.collapse;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * The alert evaluation (docs/contracts.md §D.7): a pure function of the history rows and the current row. The
 * window is the last W rows of the current row's canary set, oldest first, excluding the current row; with
 * fewer than W rows no windowed alert (collapse or churn) fires. Threshold comparisons that include equality
 * tolerate 1e-9 so a value exactly at a threshold fires despite binary rounding; strict ones do not.
 */
public final class CollapseAlerts {

    static final double EPSILON = 1e-9;

    private CollapseAlerts() {
    }

    /** One fired alert: its kind and the numbers that made it fire. */
    public record Alert(Kind kind, String detail) {
    }

    public enum Kind {
        COLLAPSE_RECALL("collapse-recall"), COLLAPSE_ENTROPY("collapse-entropy"), COLLAPSE_SHRINK("collapse-shrink"),
        MERGE_FLOOR("merge-floor"), CHURN("churn");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /**
     * The lines the windowed collapse alerts compare a row against (what a chart of a tenant's health draws):
     * recall at or below {@code recallFloor}, a distinct ratio at or below {@code distinctRatioFloor} (after no
     * rise over the window), a store below {@code storeFloor} (with over-generation rising). Empty until the
     * window holds W rows of the row's canary set.
     */
    public record Thresholds(double recallFloor, double distinctRatioFloor, double storeFloor) {
    }

    public static Optional<Thresholds> thresholds(List<CycleMetrics> history, CycleMetrics current, CollapseConfig config) {
        return thresholds(window(history, current, config.window()), config);
    }

    private static Optional<Thresholds> thresholds(List<CycleMetrics> window, CollapseConfig config) {
        if (window.size() < config.window()) {
            return Optional.empty();
        }
        long maxTotal = window.stream().mapToLong(CycleMetrics::storeTotal).max().orElse(0);
        return Optional.of(new Thresholds(median(window, CycleMetrics::meanRecall) - config.recallDrop(),
                window.get(0).distinctContentRatio() - config.entropyDrop(), config.shrinkFactor() * maxTotal));
    }

    public static List<Alert> evaluate(List<CycleMetrics> history, CycleMetrics current, CollapseConfig config) {
        List<Alert> alerts = new ArrayList<>();
        List<CycleMetrics> window = window(history, current, config.window());
        Optional<Thresholds> lines = thresholds(window, config);
        if (lines.isPresent()) {
            Thresholds t = lines.get();
            CycleMetrics start = window.get(0);
            if (current.meanRecall() <= t.recallFloor() + EPSILON) {
                alerts.add(new Alert(Kind.COLLAPSE_RECALL, String.format(Locale.ROOT,
                        "mean recall %.3f ≤ window median %.3f − %.2f", current.meanRecall(),
                        t.recallFloor() + config.recallDrop(), config.recallDrop())));
            }
            if (nonIncreasingRatios(window, current) && current.distinctContentRatio() <= t.distinctRatioFloor() + EPSILON) {
                alerts.add(new Alert(Kind.COLLAPSE_ENTROPY, String.format(Locale.ROOT,
                        "distinct content ratio fell %.3f → %.3f without rising over %d cycles",
                        start.distinctContentRatio(), current.distinctContentRatio(), window.size() + 1)));
            }
            if (current.storeTotal() < t.storeFloor() - EPSILON
                    && current.overGenerationCount() > start.overGenerationCount()) {
                alerts.add(new Alert(Kind.COLLAPSE_SHRINK, String.format(Locale.ROOT,
                        "store %d < %.2f × window max %d while over-generation rose %d → %d", current.storeTotal(),
                        config.shrinkFactor(), window.stream().mapToLong(CycleMetrics::storeTotal).max().orElse(0),
                        start.overGenerationCount(), current.overGenerationCount())));
            }
            long accepted = window.stream().mapToLong(CycleMetrics::acceptedActions).sum();
            double ndcgMedian = median(window, CycleMetrics::meanNdcg);
            double ratioMedian = median(window, CycleMetrics::distinctContentRatio);
            if (accepted >= config.churnMinAccepted()
                    && Math.abs(current.meanNdcg() - ndcgMedian) < config.churnFlatness() - EPSILON
                    && Math.abs(current.distinctContentRatio() - ratioMedian) < config.churnFlatness() - EPSILON) {
                alerts.add(new Alert(Kind.CHURN, String.format(Locale.ROOT,
                        "%d accepted writes in %d cycles, ndcg %.3f (median %.3f), distinct ratio %.3f (median %.3f)",
                        accepted, window.size(), current.meanNdcg(), ndcgMedian, current.distinctContentRatio(),
                        ratioMedian)));
            }
        }
        if (current.mergeFloorViolations() >= config.mergeFloorMin()) {
            alerts.add(new Alert(Kind.MERGE_FLOOR, String.format(Locale.ROOT,
                    "%d merges below the information floor (minimum %d)", current.mergeFloorViolations(),
                    config.mergeFloorMin())));
        }
        return alerts;
    }

    /** The last {@code w} rows of the current row's canary set, oldest first, excluding the current row. */
    static List<CycleMetrics> window(List<CycleMetrics> history, CycleMetrics current, int w) {
        List<CycleMetrics> same = history.stream()
                .filter(r -> r.canarySetId().equals(current.canarySetId()) && !r.cycleId().equals(current.cycleId()))
                .toList();
        return same.subList(Math.max(0, same.size() - w), same.size());
    }

    private static boolean nonIncreasingRatios(List<CycleMetrics> window, CycleMetrics current) {
        double previous = Double.POSITIVE_INFINITY;
        List<CycleMetrics> all = new ArrayList<>(window);
        all.add(current);
        for (CycleMetrics r : all) {
            if (r.distinctContentRatio() > previous + EPSILON) {
                return false;
            }
            previous = r.distinctContentRatio();
        }
        return true;
    }

    /** The median; an even count takes the mean of the middle two. */
    static double median(List<CycleMetrics> rows, ToDoubleFunction<CycleMetrics> metric) {
        double[] values = rows.stream().mapToDouble(metric).toArray();
        Arrays.sort(values);
        int n = values.length;
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }
}
