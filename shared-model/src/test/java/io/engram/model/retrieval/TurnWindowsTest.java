package io.engram.model.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class TurnWindowsTest {

    @Test
    void aWindowIsDueEveryStrideTurnsAndKeepsTheLastSizeTurns() {
        TurnWindows w = new TurnWindows(3, 2);
        assertThat(w.due(1)).isFalse();
        assertThat(w.due(2)).isTrue();
        assertThat(w.kept(List.of(1, 2, 3, 4, 5))).containsExactly(3, 4, 5);
        assertThat(w.kept(List.of(1, 2))).containsExactly(1, 2);
    }

    @Test
    void offMakesNoWindow() {
        assertThat(TurnWindows.OFF.on()).isFalse();
        assertThat(TurnWindows.OFF.due(100)).isFalse();
        assertThat(TurnWindows.OFF.kept(List.of(1, 2))).isEmpty();
    }

    @Test
    void aStrideLongerThanTheWindowWouldSkipTurnsAndIsRefused() {
        assertThatThrownBy(() -> new TurnWindows(3, 4)).hasMessageContaining("stride <= size");
        assertThatThrownBy(() -> new TurnWindows(-1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TurnWindows(3, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aWindowsTextIsItsTurnsOneALineAndItsIdNamesItsSessionAndEnds() {
        assertThat(TurnWindows.text(List.of("Ann: hi", "Bob: hello"))).isEqualTo("Ann: hi\nBob: hello");
        assertThat(TurnWindows.id("acme", "s1", "t0", "t5")).isEqualTo("acme/s1/window/t0..t5");
    }
}
