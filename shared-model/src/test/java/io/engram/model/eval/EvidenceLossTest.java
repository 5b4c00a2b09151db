package io.engram.model.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.engram.model.eval.EvidenceLoss.Bucket;
import java.util.List;
import org.junit.jupiter.api.Test;

class EvidenceLossTest {

    @Test
    void eachStageThatCanLoseATurnIsItsOwnBucket() {
        assertThat(EvidenceLoss.of(false, false, false)).isEqualTo(Bucket.NOT_RETRIEVED);
        assertThat(EvidenceLoss.of(true, false, false)).isEqualTo(Bucket.BELOW_CUT);
        assertThat(EvidenceLoss.of(true, true, false)).isEqualTo(Bucket.CUT_BY_BUDGET);
        assertThat(EvidenceLoss.of(true, true, true)).isEqualTo(Bucket.DISPLACED_BY_NEIGHBOURS);
        // a turn only a neighbour brought in competed all the same: the budget, not the retrievers, lost it
        assertThat(EvidenceLoss.of(false, true, false)).isEqualTo(Bucket.CUT_BY_BUDGET);
        // a turn that never competed was not displaced, whatever the other context holds
        assertThat(EvidenceLoss.of(false, false, true)).isEqualTo(Bucket.NOT_RETRIEVED);
    }

    @Test
    void sharesWeighEachMissingTurnByItsQuestionsEvidenceSoRecallAndLossesAddUpToOne() {
        EvidenceLoss.Tally tally = new EvidenceLoss.Tally();
        tally.add(4, List.of(Bucket.NOT_RETRIEVED, Bucket.NOT_RETRIEVED, Bucket.CUT_BY_BUDGET)); // recall 1/4
        tally.add(1, List.of());                                                                  // recall 1
        tally.add(2, List.of(Bucket.DISPLACED_BY_NEIGHBOURS));                                    // recall 1/2
        assertThat(tally.questions()).isEqualTo(3);
        assertThat(tally.share(Bucket.NOT_RETRIEVED)).isCloseTo(0.5 / 3, within(1e-12));
        assertThat(tally.share(Bucket.CUT_BY_BUDGET)).isCloseTo(0.25 / 3, within(1e-12));
        assertThat(tally.share(Bucket.DISPLACED_BY_NEIGHBOURS)).isCloseTo(0.5 / 3, within(1e-12));
        assertThat(tally.share(Bucket.BELOW_CUT)).isZero();
        double recall = (0.25 + 1 + 0.5) / 3;
        double lost = 0;
        for (Bucket b : Bucket.values()) {
            lost += tally.share(b);
        }
        assertThat(recall + lost).isCloseTo(1, within(1e-12));
        assertThat(new EvidenceLoss.Tally().share(Bucket.BELOW_CUT)).isZero();
        assertThatThrownBy(() -> tally.add(0, List.of())).isInstanceOf(IllegalArgumentException.class);
    }
}
