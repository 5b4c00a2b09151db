package io.engram.model.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WindowTurnFocusTest {

    private static final List<String> TURNS = List.of("Ann: Hi, how was your week?", "Bob: Busy, but I painted a lot.",
            "Ann: What did you paint?", "Bob: A sunrise over the lake.", "Ann: Lovely.", "Bob: Thanks!");

    @Test
    void theTurnsThatScoredThemselvesThenThoseWithQueryWordsKeepTheWindowsScore() {
        double[] own = {0, 0, 0, 0.4, 0, 0};
        double[] scores = new WindowTurnFocus(2, 0.25).scores("What does Bob paint?", 0.8, TURNS, own);
        // turn 3 is a hit of its own; turns 1 and 2 both hold "paint" ("Bob" is too short to count): 1, the earlier, is second
        assertThat(scores).containsExactly(0.2, 0.8, 0.2, 0.8, 0.2, 0.2);
    }

    @Test
    void tiesGoToTheEarlierTurn() {
        double[] scores = new WindowTurnFocus(1, 0.5).scores("nothing here matches", 1.0, TURNS, new double[6]);
        assertThat(scores).containsExactly(1.0, 0.5, 0.5, 0.5, 0.5, 0.5);
    }

    @Test
    void noneKeepsEveryTurnAtTheWindowsScore() {
        assertThat(WindowTurnFocus.NONE.scores("paint", 0.3, TURNS, new double[6]))
                .containsExactly(0.3, 0.3, 0.3, 0.3, 0.3, 0.3);
    }

    @Test
    void contentWordsAreStemmedAndStopWordsLeftOut() {
        assertThat(WindowTurnFocus.contentWords("What did Melanie paint, and where? Painted sunrises!"))
                .containsExactlyInAnyOrder("melan", "paint", "sunri");
        assertThat(WindowTurnFocus.matches(Set.of("paint", "lake"), "Bob: A sunrise over the lake, painted.")).isEqualTo(2);
    }

    @Test
    void badArgumentsAreRejected() {
        assertThatThrownBy(() -> new WindowTurnFocus(0, 0.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new WindowTurnFocus(2, 1.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new WindowTurnFocus(2, 0.5).scores("q", 1, TURNS, new double[2]))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
