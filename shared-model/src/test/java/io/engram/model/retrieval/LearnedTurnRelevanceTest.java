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

    @Test
    void eachFeatureSaysHowACandidateCameAndWhatOfTheQueryItHolds() {
        // in FEATURES order: bias, hit, hit_probability, hit_rank, window, window_probability, window_focus,
        // neighbour_1, neighbour_2, neighbour_only, query_words, speaker_named, tokens, windows;
        // the query's content words: melanie, paint, school, fair
        assertThat(LearnedTurnRelevance.features(QUERY, CANDIDATES.get(0))).containsExactly(new double[] {
                1, 1, 0.6, 1 / (1 + Math.log(3)), 1, 0.4, 1, 0, 0.2, 0, 1.0, 1, Math.log(13) / Math.log(257), 2 / 3.0},
                within(1e-12));
        // a neighbour only: no hit, no window, nothing of the query
        assertThat(LearnedTurnRelevance.features(QUERY, CANDIDATES.get(1))).containsExactly(new double[] {
                1, 0, 0, 0, 0, 0, 0, 0.6, 0, 1, 0, 0, Math.log(9) / Math.log(257), 0}, within(1e-12));
        // a window's other turn held by five windows (three count), two from a hit, said by someone the query does not name
        assertThat(LearnedTurnRelevance.features(QUERY, CANDIDATES.get(2))).containsExactly(new double[] {
                1, 0, 0, 0, 1, 0.4, 0, 0, 0.6, 0, 0.5, 0, Math.log(256) / Math.log(257), 1}, within(1e-12));
    }

    @Test
    void aScoreIsTheFittedProbabilityPerDiscountedToken() {
        // bias -1, neighbour_1 5, every other weight 0
        LearnedTurnRelevance nearAHit = LearnedTurnRelevance.parse(String.join("\n", LearnedTurnRelevance.FEATURES.stream()
                .map(f -> f + "\t" + (f.equals("bias") ? -1 : f.equals("neighbour_1") ? 5 : 0)).toList()));
        assertThat(nearAHit.scores(QUERY, CANDIDATES)).containsExactly(new double[] {
                1 / (1 + Math.exp(1)) / Math.pow(12, 0.7), 1 / (1 + Math.exp(-2)) / Math.pow(8, 0.7),
                1 / (1 + Math.exp(1)) / Math.pow(255, 0.7)}, within(1e-12));
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
