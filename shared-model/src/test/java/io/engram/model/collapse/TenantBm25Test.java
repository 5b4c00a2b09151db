package io.engram.model.collapse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.engram.model.retrieval.RecordType;
import java.util.List;
import org.junit.jupiter.api.Test;

class TenantBm25Test {

    private static StoreShape shapeOf(String... idsAndTexts) {
        StoreShape shape = new StoreShape(2);
        for (int i = 0; i < idsAndTexts.length; i += 2) {
            shape.upsert(StoreShape.Entry.of(idsAndTexts[i], RecordType.MEMORY, idsAndTexts[i + 1], 0));
        }
        return shape;
    }

    private static List<String> ids(List<StoreShape.Entry> entries) {
        return entries.stream().map(StoreShape.Entry::id).toList();
    }

    @Test
    void scoresWithTheTenantsOwnStatistics() {
        // 4 records of 5 tokens each (avgdl 5); "budget" in 2 of them, "harbour" in 1
        StoreShape shape = shapeOf("r1", "Budget, harbour; HARBOUR office move", "r2", "budget review of the plan",
                "r3", "hiring a data engineer now", "r4", "the office moves next week");
        // dl = 5 = avgdl: norm = 1.2; idf(budget) = ln 2, idf(harbour) = ln(1 + 3.5 / 1.5)
        double expected = Math.log(2) * 1 / (1 + 1.2) + Math.log(1 + 3.5 / 1.5) * 2 / (2 + 1.2);
        assertThat(expected).isCloseTo(1.067550, within(1e-6));
        assertThat(TenantBm25.over(shape, List.of("budget harbour")).score("budget harbour", "r1"))
                .isCloseTo(expected, within(1e-12));
    }

    @Test
    void longerRecordsScoreLowerForTheSameTermCount() {
        // lengths 2, 9, 5 and 4 (avgdl 5); "budget" in 2 of 4: idf = ln 2
        StoreShape shape = shapeOf("short", "budget review", "long", "budget review of the whole quarter and the plan",
                "r3", "hiring a data engineer now", "r4", "the office move today");
        TenantBm25 bm25 = TenantBm25.over(shape, List.of("budget"));
        // dl 2: 1 / (1 + 1.2 (0.25 + 0.75 * 2/5)); dl 9: 1 / (1 + 1.2 (0.25 + 0.75 * 9/5))
        assertThat(bm25.score("budget", "short")).isCloseTo(Math.log(2) / (1 + 1.2 * (0.25 + 0.3)), within(1e-12));
        assertThat(bm25.score("budget", "long")).isCloseTo(Math.log(2) / (1 + 1.2 * (0.25 + 1.35)), within(1e-12));
    }

    @Test
    void ranksBestFirstTiesByIdAndLeavesOutRecordsWithoutAQueryTerm() {
        StoreShape shape = shapeOf("t/b", "budget review", "t/a", "budget review", "t/c", "harbour harbour building",
                "t/d", "nothing relevant here");
        TenantBm25 bm25 = TenantBm25.over(shape, List.of("budget harbour"));
        // harbour: idf ln(1 + 3.5/1.5), tf 2, dl 3 → 0.712; budget: idf ln 2, tf 1, dl 2 → 0.343
        assertThat(ids(bm25.topK("budget harbour", 10))).containsExactly("t/c", "t/a", "t/b");
        assertThat(ids(bm25.topK("budget harbour", 2))).containsExactly("t/c", "t/a");
    }

    @Test
    void ranksOnlyWhatTheShapeHoldsNow() {
        StoreShape shape = shapeOf("a", "budget harbour", "b", "budget review");
        shape.delete("a");
        shape.upsert(StoreShape.Entry.of("c", RecordType.SUMMARY, "budget harbour harbour", 1));
        assertThat(ids(TenantBm25.over(shape, List.of("budget harbour")).topK("budget harbour", 10)))
                .containsExactly("c", "b");
    }

    @Test
    void wordsShorterThanFourLettersAreNotQueryTerms() {
        StoreShape shape = shapeOf("a", "tea at six", "b", "green tea");
        TenantBm25 bm25 = TenantBm25.over(shape, List.of("tea green"));
        assertThat(ids(bm25.topK("tea green", 10))).containsExactly("b");
        assertThat(bm25.score("tea", "a")).isZero();
    }

    @Test
    void tokensAreLowerCasedRunsOfLettersAndDigits() {
        assertThat(TenantBm25.tokens("Don't  stop: Q3-report, ÉCOLE")).containsExactly("don", "t", "stop", "q3", "report", "école");
    }
}
