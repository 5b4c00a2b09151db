package io.engram.model.collapse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.engram.model.collapse.CollapseAlerts.Kind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CollapseAlertsTest {

    private static final CollapseConfig CONFIG = CollapseConfig.DEFAULT;

    /** A row whose metrics are steady unless a test sets them. */
    private record Row(double recall, double ndcg, double ratio, long total, long overGen, long accepted, long floor,
                       String set) {
        static Row steady() {
            return new Row(0.9, 0.8, 0.9, 100, 2, 0, 0, "cs-a");
        }

        Row recall(double v) { return new Row(v, ndcg, ratio, total, overGen, accepted, floor, set); }
        Row ndcg(double v) { return new Row(recall, v, ratio, total, overGen, accepted, floor, set); }
        Row ratio(double v) { return new Row(recall, ndcg, v, total, overGen, accepted, floor, set); }
        Row total(long v) { return new Row(recall, ndcg, ratio, v, overGen, accepted, floor, set); }
        Row overGen(long v) { return new Row(recall, ndcg, ratio, total, v, accepted, floor, set); }
        Row accepted(long v) { return new Row(recall, ndcg, ratio, total, overGen, v, floor, set); }
        Row floor(long v) { return new Row(recall, ndcg, ratio, total, overGen, accepted, v, set); }
        Row set(String v) { return new Row(recall, ndcg, ratio, total, overGen, accepted, floor, v); }

        CycleMetrics at(int cycle) {
            return new CycleMetrics("t1", "c" + cycle, Instant.ofEpochSecond(cycle), "cycle_id", set, 40, recall, ndcg,
                    ndcg, List.of(), total, Map.of("memory", total), ratio, 0.8, overGen, accepted, floor, 0, List.of());
        }
    }

    private static List<Kind> fired(List<Row> window, Row current) {
        return fired(window, current, CONFIG);
    }

    private static List<Kind> fired(List<Row> window, Row current, CollapseConfig config) {
        List<CycleMetrics> history = new ArrayList<>();
        for (int i = 0; i < window.size(); i++) {
            history.add(window.get(i).at(i));
        }
        return CollapseAlerts.evaluate(history, current.at(window.size()), config).stream()
                .map(CollapseAlerts.Alert::kind).toList();
    }

    private static List<Row> steadyWindow() {
        return List.of(Row.steady(), Row.steady(), Row.steady(), Row.steady(), Row.steady());
    }

    @ParameterizedTest(name = "recall {0} against median 0.9 fires: {1}")
    @CsvSource({"0.7501, false", "0.75, true", "0.7499, true", "0.0, true", "0.9, false"})
    void collapseRecallAtTheBoundary(double current, boolean fires) {
        assertThat(fired(steadyWindow(), Row.steady().recall(current)).contains(Kind.COLLAPSE_RECALL)).isEqualTo(fires);
    }

    @ParameterizedTest(name = "odd window, current {0} fires: {1}")
    @CsvSource({"0.7501, false", "0.75, true"})
    void medianOfAnOddWindowIsTheMiddleValue(double current, boolean fires) {
        // sorted 0.2 0.8 0.9 0.95 1.0 → median 0.9 (the mean would be 0.77)
        List<Row> window = List.of(Row.steady().recall(1.0), Row.steady().recall(0.2), Row.steady().recall(0.9),
                Row.steady().recall(0.8), Row.steady().recall(0.95));
        assertThat(fired(window, Row.steady().recall(current)).contains(Kind.COLLAPSE_RECALL)).isEqualTo(fires);
    }

    @ParameterizedTest(name = "even window, current {0} fires: {1}")
    @CsvSource({"0.7001, false", "0.70, true", "0.6999, true"})
    void medianOfAnEvenWindowIsTheMeanOfTheMiddleTwo(double current, boolean fires) {
        CollapseConfig four = new CollapseConfig(4, 0.15, 0.05, 0.8, 3, 25, 0.02, 2, 40, 10);
        // sorted 0.6 0.8 0.9 1.0 → median (0.8 + 0.9) / 2 = 0.85, threshold 0.70
        List<Row> window = List.of(Row.steady().recall(1.0), Row.steady().recall(0.6), Row.steady().recall(0.9),
                Row.steady().recall(0.8));
        assertThat(fired(window, Row.steady().recall(current), four).contains(Kind.COLLAPSE_RECALL)).isEqualTo(fires);
    }

    @Test
    void theThresholdsAreTheLinesTheAlertsCompareWith() {
        // recall window 1.0 0.2 0.9 0.8 0.95 → median 0.9; ratios start at 0.9; totals max 120
        List<Row> window = List.of(Row.steady().recall(1.0), Row.steady().recall(0.2).total(120), Row.steady().recall(0.9),
                Row.steady().recall(0.8), Row.steady().recall(0.95));
        List<CycleMetrics> history = new ArrayList<>();
        for (int i = 0; i < window.size(); i++) {
            history.add(window.get(i).at(i));
        }
        CollapseAlerts.Thresholds t = CollapseAlerts.thresholds(history, Row.steady().at(5), CONFIG).orElseThrow();
        assertThat(t.recallFloor()).isCloseTo(0.75, within(1e-12));
        assertThat(t.distinctRatioFloor()).isCloseTo(0.85, within(1e-12));
        assertThat(t.storeFloor()).isCloseTo(96.0, within(1e-12));
        assertThat(CollapseAlerts.thresholds(history.subList(0, 4), Row.steady().at(5), CONFIG)).isEmpty();
    }

    @Test
    void theSettingsReaderKeepsTheDefaultsOfMissingKeys() {
        assertThat(CollapseConfig.read((key, fallback) -> fallback)).isEqualTo(CONFIG);
        Map<String, String> set = Map.of("collapse.window", "7", "collapse.recall-drop", " 0.2 ");
        CollapseConfig read = CollapseConfig.read((key, fallback) -> set.getOrDefault(key, fallback));
        assertThat(read.window()).isEqualTo(7);
        assertThat(read.recallDrop()).isEqualTo(0.2);
        assertThat(read.shrinkFactor()).isEqualTo(CONFIG.shrinkFactor());
    }

    @Test
    void aWindowShorterThanWNeverFiresACollapseAlert() {
        List<Row> four = List.of(Row.steady().ratio(1.0), Row.steady().ratio(0.9), Row.steady().ratio(0.8),
                Row.steady().ratio(0.7));
        Row current = Row.steady().recall(0.0).ratio(0.1).total(1).overGen(50).accepted(100);
        assertThat(fired(four, current)).isEmpty();
        // rows of another canary set do not fill the window either
        List<Row> mixed = new ArrayList<>(four);
        mixed.add(0, Row.steady().set("cs-old"));
        assertThat(fired(mixed, current)).isEmpty();
    }

    @Test
    void aSingleCycleRecallSpikeDoesNotFire() {
        // compared with the previous cycle (1.0) the current 0.5 would be a 0.5 drop; against the median it is none
        List<Row> window = List.of(Row.steady().recall(0.5), Row.steady().recall(0.5), Row.steady().recall(0.5),
                Row.steady().recall(0.5), Row.steady().recall(1.0));
        assertThat(fired(window, Row.steady().recall(0.5))).doesNotContain(Kind.COLLAPSE_RECALL);
        // and one bad cycle in the window does not mask a real drop
        List<Row> dip = List.of(Row.steady(), Row.steady().recall(0.1), Row.steady(), Row.steady(), Row.steady());
        assertThat(fired(dip, Row.steady().recall(0.7))).contains(Kind.COLLAPSE_RECALL);
    }

    @ParameterizedTest(name = "ratio {0} after 1.0 … 0.955 fires: {1}")
    @CsvSource({"0.9501, false", "0.95, true", "0.9499, true", "0.956, false"})
    void collapseEntropyAtTheBoundary(double current, boolean fires) {
        List<Row> window = List.of(Row.steady().ratio(1.0), Row.steady().ratio(0.98), Row.steady().ratio(0.97),
                Row.steady().ratio(0.96), Row.steady().ratio(0.955));
        assertThat(fired(window, Row.steady().ratio(current)).contains(Kind.COLLAPSE_ENTROPY)).isEqualTo(fires);
    }

    @Test
    void collapseEntropyNeedsANonIncreasingSeries() {
        List<Row> window = List.of(Row.steady().ratio(1.0), Row.steady().ratio(0.8), Row.steady().ratio(0.85),
                Row.steady().ratio(0.8), Row.steady().ratio(0.8));
        assertThat(fired(window, Row.steady().ratio(0.5))).doesNotContain(Kind.COLLAPSE_ENTROPY);
    }

    @ParameterizedTest(name = "total {0}, over-generation {1} fires: {2}")
    @CsvSource({"81, 3, false", "80, 3, false", "79, 3, true", "79, 2, false", "10, 2, false"})
    void collapseShrinkAtTheBoundary(long total, long overGen, boolean fires) {
        // window max 100 → 0.8 × 100 = 80; the window starts at over-generation 2
        assertThat(fired(steadyWindow(), Row.steady().total(total).overGen(overGen)).contains(Kind.COLLAPSE_SHRINK))
                .isEqualTo(fires);
    }

    @ParameterizedTest(name = "{0} floor violations fire: {1}")
    @CsvSource({"2, false", "3, true", "4, true"})
    void mergeFloorAtTheBoundaryEvenWithoutHistory(long violations, boolean fires) {
        assertThat(fired(steadyWindow(), Row.steady().floor(violations)).contains(Kind.MERGE_FLOOR)).isEqualTo(fires);
        assertThat(fired(List.of(), Row.steady().floor(violations)).contains(Kind.MERGE_FLOOR)).isEqualTo(fires);
    }

    @ParameterizedTest(name = "accepted {0}/cycle, ndcg {1}, ratio {2} churn: {3}")
    @CsvSource({
            "5, 0.8, 0.9, true",
            "4, 0.8, 0.9, false",      // Σ 20 < 25
            "5, 0.8199, 0.9, true",
            "5, 0.82, 0.9, false",     // |Δ ndcg| = 0.02 is not below 0.02
            "5, 0.7801, 0.9, true",
            "5, 0.8, 0.9199, true",
            "5, 0.8, 0.92, false",
            "5, 0.8, 0.88, false"})
    void churnAtTheBoundary(long acceptedPerCycle, double ndcg, double ratio, boolean fires) {
        List<Row> window = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            window.add(Row.steady().accepted(acceptedPerCycle));
        }
        List<Kind> kinds = fired(window, Row.steady().ndcg(ndcg).ratio(ratio).accepted(acceptedPerCycle));
        assertThat(kinds.contains(Kind.CHURN)).isEqualTo(fires);
        assertThat(kinds).doesNotContain(Kind.COLLAPSE_RECALL, Kind.COLLAPSE_ENTROPY, Kind.COLLAPSE_SHRINK);
    }

    @Test
    void aSteadyQuietStoreFiresNothing() {
        assertThat(fired(steadyWindow(), Row.steady())).isEmpty();
    }
}
