package io.engram.model.collapse;

import java.io.Serializable;
import java.util.function.BinaryOperator;

/**
 * The detector's thresholds (docs/contracts.md §D.7).
 *
 * @param window               W, history rows of the same canary set an alert looks back over
 * @param recallDrop           collapse-recall: current ≤ median(window) − recallDrop
 * @param entropyDrop          collapse-entropy: window start − current distinct ratio ≥ entropyDrop
 * @param shrinkFactor         collapse-shrink: store_total below shrinkFactor × window max
 * @param mergeFloorMin        merge-floor: violations in the cycle ≥ mergeFloorMin
 * @param churnMinAccepted     churn: Σ accepted actions in the window ≥ churnMinAccepted
 * @param churnFlatness        churn: |ndcg − median| and |ratio − median| both below it
 * @param maxGeneration        records above it count as over-generation
 * @param canaryCount          canaries minted per set
 * @param k                    canary hits are looked for in the top k
 */
public record CollapseConfig(int window, double recallDrop, double entropyDrop, double shrinkFactor,
                             int mergeFloorMin, long churnMinAccepted, double churnFlatness, int maxGeneration,
                             int canaryCount, int k) implements Serializable {

    public static final CollapseConfig DEFAULT = new CollapseConfig(5, 0.15, 0.05, 0.8, 3, 25, 0.02, 2, 40, 10);

    public CollapseConfig {
        if (window < 1 || k < 1 || canaryCount < 1) {
            throw new IllegalArgumentException("window, k and canary count must be positive");
        }
    }

    /**
     * The {@code collapse.*} settings (docs/operations.md) read through {@code setting} (key, default as text →
     * value), every key missing keeping {@link #DEFAULT}'s value: one reader for the job and the service.
     */
    public static CollapseConfig read(BinaryOperator<String> setting) {
        CollapseConfig d = DEFAULT;
        return new CollapseConfig(
                Integer.parseInt(setting.apply("collapse.window", String.valueOf(d.window())).trim()),
                Double.parseDouble(setting.apply("collapse.recall-drop", String.valueOf(d.recallDrop())).trim()),
                Double.parseDouble(setting.apply("collapse.entropy-drop", String.valueOf(d.entropyDrop())).trim()),
                Double.parseDouble(setting.apply("collapse.shrink-factor", String.valueOf(d.shrinkFactor())).trim()),
                Integer.parseInt(setting.apply("collapse.merge-floor-min", String.valueOf(d.mergeFloorMin())).trim()),
                Long.parseLong(setting.apply("collapse.churn-min-accepted", String.valueOf(d.churnMinAccepted())).trim()),
                Double.parseDouble(setting.apply("collapse.churn-flatness", String.valueOf(d.churnFlatness())).trim()),
                Integer.parseInt(setting.apply("collapse.max-generation", String.valueOf(d.maxGeneration())).trim()),
                Integer.parseInt(setting.apply("collapse.canaries", String.valueOf(d.canaryCount())).trim()),
                Integer.parseInt(setting.apply("collapse.k", String.valueOf(d.k())).trim()));
    }
}
