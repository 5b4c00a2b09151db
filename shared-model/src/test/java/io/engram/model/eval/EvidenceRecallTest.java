package io.engram.model.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.engram.model.eval.EvidenceRecall.Retrieved;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EvidenceRecallTest {

    private static final Map<String, String> TEXTS = Map.of(
            "D1:3", "Caroline: I went to the support group yesterday.",
            "D2:5", "Melanie: I painted a lake sunrise.",
            "D3:1", "Caroline: My dog is called Miso.");

    @Test
    void evidencePresentAbsentAndInsideASummary() {
        List<Retrieved> retrieved = List.of(
                Retrieved.turn("D1:3", TEXTS.get("D1:3")),
                Retrieved.summary("Melanie: I painted a lake sunrise.\nCaroline: We went hiking."));
        assertThat(EvidenceRecall.recall(Set.of("D1:3"), retrieved, TEXTS)).isEqualTo(1.0);
        assertThat(EvidenceRecall.recall(Set.of("D2:5"), retrieved, TEXTS)).isEqualTo(1.0); // inside the summary
        assertThat(EvidenceRecall.recall(Set.of("D3:1"), retrieved, TEXTS)).isEqualTo(0.0); // absent
        assertThat(EvidenceRecall.recall(Set.of("D1:3", "D2:5", "D3:1"), retrieved, TEXTS)).isEqualTo(2 / 3.0);
        // a summary that paraphrases does not count: the text must be there verbatim
        assertThat(EvidenceRecall.recall(Set.of("D3:1"), List.of(Retrieved.summary("Caroline has a dog named Miso.")),
                TEXTS)).isZero();
    }

    @Test
    void malformedIdsAreToleratedAndCounted() {
        EvidenceRecall.Evidence e = EvidenceRecall.parse(List.of("D1:3", "D8:6; D9:17", "D:11", "", " D2:5 "));
        assertThat(e.ids()).containsExactly("D1:3", "D8:6", "D9:17", "D2:5");
        assertThat(e.malformed()).isEqualTo(3); // the pair, the broken one and the empty one; padding is fine
        assertThatThrownBy(() -> EvidenceRecall.recall(Set.of(), List.of(), TEXTS)).isInstanceOf(IllegalArgumentException.class);
    }
}
