package io.engram.model.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ContinuityTailTest {

    record T(String role, int tokens) implements ContinuityTail.Turn {
        @Override
        public boolean isUser() {
            return role.equals("user");
        }

        @Override
        public boolean isAssistant() {
            return role.equals("assistant");
        }
    }

    private static List<T> alternating(int n, int tokens) {
        List<T> turns = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            turns.add(new T(i % 2 == 0 ? "user" : "assistant", tokens));
        }
        return turns;
    }

    @Test
    void anAlternatingSessionKeepsTheTailAtItsTargetNotTheWholeSession() {
        List<T> session = alternating(200, 20);
        int start = ContinuityTail.DEFAULT.start(session, T::tokens);
        // 6 turns of 20 tokens fit 128; the 6th from the end is a user turn, so no pairing is needed
        assertThat(session.size() - start).isEqualTo(6);
    }

    @Test
    void atLeastMTurnsEvenWhenTheyExceedTheTarget() {
        List<T> session = alternating(10, 100);
        int start = ContinuityTail.DEFAULT.start(session, T::tokens);
        // the last 4 turns start with a user turn (index 6): nothing more fits 128 tokens
        assertThat(start).isEqualTo(6);
    }

    @Test
    void anAssistantTurnAtTheBoundaryBringsItsUserTurnOnly() {
        List<T> session = new ArrayList<>(alternating(9, 100));
        // the last 4 turns (5..8) start with an assistant reply (index 5) to user turn 4
        int start = ContinuityTail.DEFAULT.start(session, T::tokens);
        assertThat(start).isEqualTo(4);
        assertThat(session.size() - start).isEqualTo(5);
    }

    @Test
    void shortSessionsAreWholeAndEmptyOnesEmpty() {
        assertThat(ContinuityTail.DEFAULT.start(alternating(3, 500), T::tokens)).isZero();
        assertThat(ContinuityTail.DEFAULT.start(List.<T>of(), T::tokens)).isZero();
    }

    @Test
    void extensionStopsAtTheFirstTurnThatDoesNotFit() {
        List<T> session = List.of(new T("user", 5), new T("assistant", 90), new T("user", 10),
                new T("assistant", 10), new T("user", 10), new T("assistant", 10));
        // last 4 = 40 tokens; the 90-token turn would make 130 > 128: stop; index 2 is a user turn
        assertThat(ContinuityTail.DEFAULT.start(session, T::tokens)).isEqualTo(2);
    }
}
