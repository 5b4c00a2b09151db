package io.engram.bench.footprint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class FootprintCorpusTest {

    private static final List<List<String>> GROUPS = List.of(List.of("a1", "a2", "a3", "a4"), List.of("b1", "b2", "b3", "b4"));

    @Test
    void everyNthUnitIsHeldOutAndTheRestIndexedAsWindowsWithinTheirGroup() {
        FootprintCorpus corpus = FootprintCorpus.of(GROUPS, 100, 2);
        assertThat(corpus.queries()).containsExactly("a1", "b1");
        assertThat(corpus.documents()).containsExactly("a2", "a3", "a4", "b2", "b3", "b4",
                "a2\na3", "a3\na4", "b2\nb3", "b3\nb4", "a2\na3\na4", "b2\nb3\nb4");
    }

    @Test
    void theDocumentsStopAtTheAskedCount() {
        assertThat(FootprintCorpus.of(GROUPS, 7, 2).documents()).containsExactly("a2", "a3", "a4", "b2", "b3", "b4", "a2\na3");
    }

    @Test
    void aSourceTooSmallForItsQueriesIsRefused() {
        assertThatThrownBy(() -> FootprintCorpus.of(GROUPS, 10, 5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the source holds 8 texts: too few to hold out 5 queries");
    }
}
