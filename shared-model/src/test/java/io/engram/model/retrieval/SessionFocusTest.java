package io.engram.model.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SessionFocusTest {

    @Test
    void hitsOfTheSessionsWithMostScoreGainOnLoneHitsElsewhere() {
        // s1 has mass 0.5 + 0.4 = 0.9 (the most), s2 0.6; w = 0.5
        double[] focused = new SessionFocus(0.5).scores(Arrays.asList("s2", "s1", "s1", null),
                new double[] {0.6, 0.5, 0.4, 0.3});
        assertThat(focused[0]).isCloseTo(0.6 * (0.5 + 0.5 * 0.6 / 0.9), within(1e-12));
        assertThat(focused[1]).isCloseTo(0.5, within(1e-12));
        assertThat(focused[2]).isCloseTo(0.4, within(1e-12));
        assertThat(focused[3]).isCloseTo(0.3, within(1e-12)); // no session: as it was
        assertThat(focused[1]).isGreaterThan(focused[0]); // the lone best hit now ranks below the focused session's
    }

    @Test
    void noneLeavesEveryScoreAsItIsAndBadWeightsAreRefused() {
        assertThat(SessionFocus.NONE.scores(Arrays.asList("a", "b"), new double[] {0.9, 0.1})).containsExactly(0.9, 0.1);
        assertThatThrownBy(() -> new SessionFocus(-0.1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SessionFocus(1.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SessionFocus.NONE.scores(Arrays.asList("a"), new double[0]))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
