package io.engram.model.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class SpeakerMatchTest {

    @Test
    void aHitSaidByTheNamedPersonGainsAndOthersKeepTheirScore() {
        double[] scores = new SpeakerMatch(0.5).scores("What did Melanie's kids paint?",
                List.of("Melanie: We painted the lake.", "Caroline: I painted too.", "no speaker here", "melanie: lower"),
                new double[] {1.0, 1.0, 1.0, 1.0});
        assertThat(scores).containsExactly(1.5, 1.0, 1.0, 1.0);
    }

    @Test
    void noWeightChangesNothingAndANegativeOneIsRefused() {
        assertThat(SpeakerMatch.NONE.scores("Ask Ann", List.of("Ann: hi"), new double[] {0.3})).containsExactly(0.3);
        assertThatThrownBy(() -> new SpeakerMatch(-0.1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theSpeakerIsTheNameBeforeTheFirstColon() {
        assertThat(SpeakerMatch.speaker("Jean-Luc: time 10:30")).isEqualTo("jean-luc");
        assertThat(SpeakerMatch.speaker("at 10:30 we met")).isNull();
        assertThat(SpeakerMatch.named("When did Caroline meet Jean-Luc?")).containsExactlyInAnyOrder("when", "caroline",
                "jean-luc");
    }
}
