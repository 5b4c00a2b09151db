package io.engram.model.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RankFusionTest {

    @Test
    void reciprocalRankSumsOneOverKPlusRank() {
        Map<String, Double> fused = RankFusion.reciprocalRank(List.of(List.of("a", "b", "c"), List.of("c", "a")), 60);
        assertThat(fused.get("a")).isCloseTo(1.0 / 61 + 1.0 / 62, within(1e-12));
        assertThat(fused.get("b")).isCloseTo(1.0 / 62, within(1e-12));
        assertThat(fused.get("c")).isCloseTo(1.0 / 63 + 1.0 / 61, within(1e-12));
        // a document found by both retrievers beats one found by either alone
        assertThat(fused.get("c")).isGreaterThan(fused.get("b"));
    }
}
