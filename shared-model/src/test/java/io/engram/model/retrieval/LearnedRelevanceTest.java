package io.engram.model.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class LearnedRelevanceTest {

    private static final String QUERY = "What did Melanie paint for the school fair?";
    /** Two hits of session s1 (one a window), one of s2. */
    private static final List<LearnedRelevance.Hit> HITS = List.of(
            new LearnedRelevance.Hit("Melanie: I painted a lake for the school fair.", "s1", false, 1, 3, 0.80, 0.08, 12),
            new LearnedRelevance.Hit("Caroline: Nice!\nMelanie: The fair was fun.", "s1", true, null, 1, 0.90, 0.04, 255),
            new LearnedRelevance.Hit("Caroline: My school sold cakes.", "s2", false, 8, null, 0.30, 0.02, 6));

    private static double feature(int hit, String name) {
        return LearnedRelevance.features(QUERY, HITS)[hit][LearnedRelevance.FEATURES.indexOf(name)];
    }

    @Test
    void howEachRetrieverFoundAHitAndWhereItStandsAmongTheOthers() {
        assertThat(feature(0, "bias")).isEqualTo(1);
        assertThat(feature(0, "lexical")).isEqualTo(1);
        assertThat(feature(1, "lexical")).isEqualTo(0);
        assertThat(feature(0, "lexical_rank")).isEqualTo(1); // 1 / (1 + ln 1)
        assertThat(feature(2, "lexical_rank")).isCloseTo(1 / (1 + Math.log(8)), within(1e-12));
        assertThat(feature(1, "lexical_rank")).isEqualTo(0);
        assertThat(feature(0, "vector_rank")).isCloseTo(1 / (1 + Math.log(3)), within(1e-12));
        assertThat(feature(2, "vector")).isEqualTo(0);
        assertThat(feature(0, "cosine")).isEqualTo(0.80);
        assertThat(feature(0, "cosine_gap")).isCloseTo(-0.10, within(1e-12));
        assertThat(feature(1, "cosine_gap")).isEqualTo(0);
        assertThat(feature(1, "fused")).isCloseTo(0.5, within(1e-12));
        assertThat(feature(2, "fused")).isCloseTo(0.25, within(1e-12));
        assertThat(feature(1, "window")).isEqualTo(1);
        assertThat(feature(0, "window")).isEqualTo(0);
    }

    @Test
    void whatOfTheQueryAHitHoldsWhoSaidItAndItsSession() {
        // the query's content words: melanie, paint, school, fair
        assertThat(feature(0, "query_words")).isEqualTo(1.0);
        assertThat(feature(1, "query_words")).isEqualTo(0.5);
        assertThat(feature(2, "query_words")).isEqualTo(0.25);
        assertThat(feature(0, "speaker_named")).isEqualTo(1);
        assertThat(feature(1, "speaker_named")).isEqualTo(0); // the window starts with Caroline
        assertThat(feature(0, "tokens")).isCloseTo(Math.log(13) / Math.log(257), within(1e-12));
        assertThat(feature(1, "tokens")).isCloseTo(Math.log(256) / Math.log(257), within(1e-12));
        assertThat(feature(0, "session_share")).isCloseTo(2 / 3.0, within(1e-12));
        assertThat(feature(2, "session_share")).isCloseTo(1 / 3.0, within(1e-12));
        assertThat(feature(1, "session_best")).isEqualTo(1); // its session holds the best fused hit
        assertThat(feature(2, "session_best")).isCloseTo(0.25, within(1e-12));
    }

    @Test
    void aScoreIsTheFittedProbabilityPerToken() {
        double[] weights = new double[LearnedRelevance.FEATURES.size()];
        weights[LearnedRelevance.FEATURES.indexOf("bias")] = -1;
        weights[LearnedRelevance.FEATURES.indexOf("query_words")] = 2;
        double[] scores = new LearnedRelevance(weights).scores(QUERY, HITS);
        assertThat(scores[0]).isCloseTo(1 / (1 + Math.exp(-1)) / 12, within(1e-12));
        assertThat(scores[1]).isCloseTo(0.5 / 255, within(1e-12));
        assertThat(scores[2]).isCloseTo(1 / (1 + Math.exp(0.5)) / 6, within(1e-12));
        // no weights: every hit equally likely, the shortest first
        assertThat(LearnedRelevance.NONE.scores(QUERY, HITS)).containsExactly(0.5 / 12, 0.5 / 255, 0.5 / 6);
        assertThat(LearnedRelevance.NONE.scores(QUERY, List.of())).isEmpty();
    }

    @Test
    void weightsAreReadOnePerFeatureInOrderAndAnythingElseIsRefused() {
        StringBuilder tsv = new StringBuilder("# fitted on a test\n");
        for (int i = 0; i < LearnedRelevance.FEATURES.size(); i++) {
            tsv.append(LearnedRelevance.FEATURES.get(i)).append('\t').append(i * 0.5).append('\n');
        }
        LearnedRelevance read = LearnedRelevance.parse(tsv.toString());
        assertThat(read.weights()[3]).isEqualTo(1.5);
        assertThat(read).isEqualTo(LearnedRelevance.parse(tsv.toString()));
        assertThat(read).isNotEqualTo(LearnedRelevance.NONE);

        String swapped = tsv.toString().replaceFirst("lexical\t", "vector\t");
        assertThatThrownBy(() -> LearnedRelevance.parse(swapped)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 2 must be 'lexical<TAB>weight'");
        String noNumber = tsv.toString().replaceFirst("bias\t0.0", "bias\tlots");
        assertThatThrownBy(() -> LearnedRelevance.parse(noNumber)).hasMessageContaining("line 1 has no number");
        assertThatThrownBy(() -> LearnedRelevance.parse("bias\t1\n")).hasMessageContaining("14 weights expected, got 1");
        assertThatThrownBy(() -> new LearnedRelevance(new double[2])).hasMessageContaining("14 weights expected");
    }

    @Test
    void theShippedWeightsLoadAndPreferAHitBothRetrieversRankFirst() {
        assertThat(LearnedRelevance.DEFAULT.weights()).hasSize(LearnedRelevance.FEATURES.size());
        List<LearnedRelevance.Hit> pair = List.of(
                new LearnedRelevance.Hit("Melanie: I painted a lake for the school fair.", "s1", false, 1, 1, 0.8, 0.1, 12),
                new LearnedRelevance.Hit("Caroline: We went camping in the mountains.", "s2", false, 40, 45, 0.2, 0.03, 12));
        double[] scores = LearnedRelevance.DEFAULT.scores(QUERY, pair);
        assertThat(scores[0]).isGreaterThan(scores[1] * 2);
    }
}
