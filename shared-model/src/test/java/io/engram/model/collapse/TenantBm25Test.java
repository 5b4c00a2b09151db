package io.engram.model.collapse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TenantBm25Test {

    // a tenant of 4 learning records, 5 tokens long on average; "budget" in 2 of them, "harbour" in 1
    private static final TenantBm25.Stats STATS = new TenantBm25.Stats(4, 5.0, Map.of("budget", 2L, "harbour", 1L));

    @Test
    void scoresWithTheTenantsOwnStatistics() {
        // dl = 5 = avgdl: norm = 1.2; idf(budget) = ln 2, idf(harbour) = ln(1 + 3.5 / 1.5)
        double expected = Math.log(2) * 1 / (1 + 1.2) + Math.log(1 + 3.5 / 1.5) * 2 / (2 + 1.2);
        assertThat(expected).isCloseTo(1.067550, within(1e-6));
        assertThat(TenantBm25.score(Set.of("budget", "harbour"), "Budget, harbour; HARBOUR office move", STATS))
                .isCloseTo(expected, within(1e-12));
    }

    @Test
    void longerRecordsScoreLowerForTheSameTermCount() {
        double shortText = TenantBm25.score(Set.of("budget"), "budget review", STATS);
        double longText = TenantBm25.score(Set.of("budget"), "budget review of the whole quarter and the plan", STATS);
        // dl 2: 1 / (1 + 1.2 (0.25 + 0.75 * 2/5)); dl 9: 1 / (1 + 1.2 (0.25 + 0.75 * 9/5))
        assertThat(shortText).isCloseTo(Math.log(2) / (1 + 1.2 * (0.25 + 0.3)), within(1e-12));
        assertThat(longText).isCloseTo(Math.log(2) / (1 + 1.2 * (0.25 + 1.35)), within(1e-12));
    }

    @Test
    void ranksBestFirstTiesByIdAndLeavesOutRecordsWithoutAQueryTerm() {
        List<TenantBm25.Candidate> candidates = List.of(
                new TenantBm25.Candidate("t/b", "budget review"),
                new TenantBm25.Candidate("t/a", "budget review"),
                new TenantBm25.Candidate("t/c", "harbour harbour building"),
                new TenantBm25.Candidate("t/d", "nothing relevant here"));
        assertThat(TenantBm25.topK("budget harbour", candidates, STATS, 10)).containsExactly("t/c", "t/a", "t/b");
        assertThat(TenantBm25.topK("budget harbour", candidates, STATS, 2)).containsExactly("t/c", "t/a");
    }

    @Test
    void tokensAreLowerCasedRunsOfLettersAndDigits() {
        assertThat(TenantBm25.tokens("Don't  stop: Q3-report, ÉCOLE")).containsExactly("don", "t", "stop", "q3", "report", "école");
    }
}
