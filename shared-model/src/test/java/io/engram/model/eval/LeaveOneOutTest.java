package io.engram.model.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LeaveOneOutTest {

    @Test
    void eachGroupGetsTheChoiceBestOnTheOthersNeverOneChosenOnItself() {
        Map<String, Map<String, Double>> scores = new LinkedHashMap<>();
        scores.put("default", ordered("a", 0.5, "b", 0.5, "c", 0.5));
        // fitted to a: best overall only because of a, so never chosen when a is held out
        scores.put("fitted", ordered("a", 1.0, "b", 0.45, "c", 0.45));
        List<LeaveOneOut.Fold> folds = LeaveOneOut.folds(scores);
        assertThat(folds).extracting(LeaveOneOut.Fold::heldOut).containsExactly("a", "b", "c");
        assertThat(folds).extracting(LeaveOneOut.Fold::chosen).containsExactly("default", "fitted", "fitted");
        assertThat(folds.get(0).trainingScore()).isCloseTo(0.5, within(1e-12));
        assertThat(folds.get(1).trainingScore()).isCloseTo(0.725, within(1e-12));
    }

    @Test
    void tiesKeepTheChoiceListedFirst() {
        Map<String, Map<String, Double>> scores = new LinkedHashMap<>();
        scores.put("default", ordered("a", 0.5, "b", 0.5, "c", 0.5));
        scores.put("same", ordered("a", 0.5, "b", 0.5, "c", 0.5));
        assertThat(LeaveOneOut.folds(scores)).extracting(LeaveOneOut.Fold::chosen).containsOnly("default");
    }

    @Test
    void refusesWhatCannotBeLeftOut() {
        assertThatThrownBy(() -> LeaveOneOut.folds(Map.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LeaveOneOut.folds(Map.of("x", Map.of("a", 1.0))))
                .hasMessageContaining("at least two groups");
        Map<String, Map<String, Double>> uneven = new LinkedHashMap<>();
        uneven.put("x", ordered("a", 1.0, "b", 1.0, "c", 1.0));
        uneven.put("y", ordered("a", 1.0, "b", 1.0, "d", 1.0));
        assertThatThrownBy(() -> LeaveOneOut.folds(uneven)).hasMessageContaining("y is scored on");
    }

    private static Map<String, Double> ordered(String g1, double s1, String g2, double s2, String g3, double s3) {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put(g1, s1);
        m.put(g2, s2);
        m.put(g3, s3);
        return m;
    }
}
