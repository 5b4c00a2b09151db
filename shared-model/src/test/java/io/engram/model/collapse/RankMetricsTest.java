package io.engram.model.collapse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RankMetricsTest {

    private static final double LOG2_3 = Math.log(3) / Math.log(2);

    @Test
    void recallCountsRelevantInTopK() {
        List<String> ranked = List.of("a", "x", "b", "y", "c");
        assertThat(RankMetrics.recallAtK(ranked, Set.of("a", "b", "c"), 3)).isCloseTo(2 / 3.0, within(1e-12));
        assertThat(RankMetrics.recallAtK(ranked, Set.of("a", "b", "c"), 5)).isEqualTo(1.0);
        assertThat(RankMetrics.recallAtK(ranked, Set.of("z"), 5)).isEqualTo(0.0);
    }

    @Test
    void ndcgDiscountsByLog2OfRankPlusTwo() {
        // relevant at ranks 1 and 2: (1/log2(3) + 1/log2(4)) / (1 + 1/log2(3))
        double expected = (1 / LOG2_3 + 0.5) / (1 + 1 / LOG2_3);
        assertThat(RankMetrics.ndcgAtK(List.of("x", "a", "b"), Set.of("a", "b"), 10)).isCloseTo(expected, within(1e-12));
        assertThat(RankMetrics.ndcgAtK(List.of("a", "b"), Set.of("a", "b"), 10)).isCloseTo(1.0, within(1e-12));
    }

    @Test
    void mrrIsReciprocalOfFirstRelevantRank() {
        assertThat(RankMetrics.mrr(List.of("x", "y", "a"), Set.of("a"), 10)).isCloseTo(1 / 3.0, within(1e-12));
        assertThat(RankMetrics.mrr(List.of("x", "y", "a"), Set.of("a"), 2)).isEqualTo(0.0);
    }

    @Test
    void duplicatesCountOnce() {
        // "x" three times must not push "a" out of the top 3, nor count "a" twice.
        List<String> ranked = List.of("x", "x", "x", "a", "a", "b");
        assertThat(RankMetrics.firstRelevantRank(ranked, "a"::equals, 3)).isEqualTo(1);
        assertThat(RankMetrics.recallAtK(ranked, Set.of("a", "b"), 3)).isEqualTo(1.0);
        assertThat(RankMetrics.ndcgAtK(List.of("a", "a"), Set.of("a", "b"), 10)).isCloseTo(1 / (1 + 1 / LOG2_3), within(1e-12));
    }

    @Test
    void canaryMeansFollowTheBrief() {
        CanaryScores s = CanaryScores.of(new int[] {0, 2, -1, 1});
        assertThat(s.meanRecall()).isEqualTo(0.75);
        assertThat(s.meanMrr()).isCloseTo((1 + 1 / 3.0 + 0.5) / 4, within(1e-12));
        assertThat(s.meanNdcg()).isCloseTo((1 + 0.5 + 1 / LOG2_3) / 4, within(1e-12));
        assertThat(CanaryScores.of(new int[0])).isEqualTo(new CanaryScores(0, 0, 0));
    }
}
