package io.engram.model.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class LearnedTurnRelevanceTest {

    private static final String QUERY = "What did Melanie paint for the school fair?";
    /** A retrieved turn that is also a window's focus, a neighbour only, and a window's other turn. */
    private static final List<LearnedTurnRelevance.Candidate> CANDIDATES = List.of(
            new LearnedTurnRelevance.Candidate("Melanie: I painted a lake for the school fair.", 12, 0.6, 3, 0.4, true, 2, 0, 0.2),
            new LearnedTurnRelevance.Candidate("Caroline: Wow, show me!", 8, 0, 0, 0, false, 0, 0.6, 0),
            new LearnedTurnRelevance.Candidate("Caroline: The school fair was fun.", 255, 0, 0, 0.4, false, 5, 0, 0.6));

    private static double feature(int candidate, String name) {
        return LearnedTurnRelevance.features(QUERY, CANDIDATES.get(candidate))[LearnedTurnRelevance.FEATURES.indexOf(name)];
    }

    @Test
    void howACandidateCame() {
        assertThat(feature(0, "bias")).isEqualTo(1);
        assertThat(feature(0, "hit")).isEqualTo(1);
        assertThat(feature(1, "hit")).isEqualTo(0);
        assertThat(feature(0, "hit_probability")).isEqualTo(0.6);
        assertThat(feature(0, "hit_rank")).isCloseTo(1 / (1 + Math.log(3)), within(1e-12));
        assertThat(feature(1, "hit_rank")).isEqualTo(0);
        assertThat(feature(0, "window")).isEqualTo(1);
        assertThat(feature(1, "window")).isEqualTo(0);
        assertThat(feature(2, "window_probability")).isEqualTo(0.4);
        assertThat(feature(0, "window_focus")).isEqualTo(1);
        assertThat(feature(2, "window_focus")).isEqualTo(0);
        assertThat(feature(0, "windows")).isCloseTo(2 / 3.0, within(1e-12));
        assertThat(feature(2, "windows")).isEqualTo(1); // at most three count
        assertThat(feature(1, "neighbour_1")).isEqualTo(0.6);
        assertThat(feature(2, "neighbour_2")).isEqualTo(0.6);
        assertThat(feature(1, "neighbour_only")).isEqualTo(1);
        assertThat(feature(0, "neighbour_only")).isEqualTo(0); // a hit two away from another is no neighbour only
    }

    @Test
    void whatOfTheQueryACandidateHoldsAndWhoSaidIt() {
        // the query's content words: melanie, paint, school, fair
        assertThat(feature(0, "query_words")).isEqualTo(1.0);
        assertThat(feature(1, "query_words")).isEqualTo(0);
        assertThat(feature(2, "query_words")).isEqualTo(0.5);
        assertThat(feature(0, "speaker_named")).isEqualTo(1);
        assertThat(feature(2, "speaker_named")).isEqualTo(0);
        assertThat(feature(0, "tokens")).isCloseTo(Math.log(13) / Math.log(257), within(1e-12));
    }

    @Test
    void aScoreIsTheFittedProbabilityPerDiscountedToken() {
        double[] weights = new double[LearnedTurnRelevance.FEATURES.size()];
        weights[LearnedTurnRelevance.FEATURES.indexOf("bias")] = -1;
        weights[LearnedTurnRelevance.FEATURES.indexOf("neighbour_1")] = 5;
        double[] scores = new LearnedTurnRelevance(weights).scores(QUERY, CANDIDATES);
        assertThat(scores[0]).isCloseTo(1 / (1 + Math.exp(1)) / Math.pow(12, 0.7), within(1e-12));
        assertThat(scores[1]).isCloseTo(1 / (1 + Math.exp(-2)) / Math.pow(8, 0.7), within(1e-12));
        assertThat(scores[2]).isCloseTo(1 / (1 + Math.exp(1)) / Math.pow(255, 0.7), within(1e-12));
    }

    @Test
    void weightsAreReadOnePerFeatureInOrder() {
        StringBuilder tsv = new StringBuilder("# fitted on a test\n");
        for (int i = 0; i < LearnedTurnRelevance.FEATURES.size(); i++) {
            tsv.append(LearnedTurnRelevance.FEATURES.get(i)).append('\t').append(i * 0.25).append('\n');
        }
        assertThat(LearnedTurnRelevance.parse(tsv.toString()).weights()[4]).isEqualTo(1.0);
        String swapped = tsv.toString().replaceFirst("hit\t", "window\t");
        assertThatThrownBy(() -> LearnedTurnRelevance.parse(swapped)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 2 must be 'hit<TAB>weight'");
        assertThatThrownBy(() -> new LearnedTurnRelevance(new double[3])).hasMessageContaining("14 weights expected");
    }

    @Test
    void theShippedWeightsPreferARetrievedTurnHoldingTheQueryToAnUnrelatedNeighbour() {
        assertThat(LearnedTurnRelevance.DEFAULT.weights()).hasSize(LearnedTurnRelevance.FEATURES.size());
        List<LearnedTurnRelevance.Candidate> pair = List.of(
                new LearnedTurnRelevance.Candidate("Melanie: I painted a lake for the school fair.", 12, 0.6, 1, 0, false, 0, 0, 0),
                new LearnedTurnRelevance.Candidate("Caroline: Wow, show me!", 12, 0, 0, 0, false, 0, 0.05, 0));
        double[] scores = LearnedTurnRelevance.DEFAULT.scores(QUERY, pair);
        assertThat(scores[0]).isGreaterThan(scores[1] * 2);
    }
}
