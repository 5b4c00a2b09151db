package io.engram.model.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CompactionRulesTest {

    private static List<Integer> sizes(List<int[]> clusters) {
        return clusters.stream().map(r -> r[1] - r[0]).toList();
    }

    @ParameterizedTest(name = "n={0}")
    @CsvSource(delimiter = '|', textBlock = """
            19 | ''
            20 | 20
            21 | 11,10
            39 | 20,19
            40 | 20,20
            41 | 14,14,13
            """)
    void clustersAreCeilNOverKContiguousGroups(int n, String expected) {
        List<Integer> want = expected.isEmpty() ? List.of()
                : java.util.Arrays.stream(expected.split(",")).map(Integer::parseInt).toList();
        List<int[]> clusters = Clusters.of(n, 20);
        assertThat(sizes(clusters)).isEqualTo(want);
        // contiguous, covering 0..n, turn i in cluster floor(i*c/n)
        int c = clusters.size();
        for (int j = 0; j < c; j++) {
            for (int i = clusters.get(j)[0]; i < clusters.get(j)[1]; i++) {
                assertThat((long) i * c / n).isEqualTo(j);
            }
        }
    }

    @Test
    void preservationIsAlignCoverConfidenceAndDecay() {
        float[] a = {1, 0};
        float[] b = {0, 1};
        // summary = a, sources a and b: mean (0.5, 0.5) -> align cos 45° = 0.7071; cover (1 + 0) / 2 = 0.5
        PreservationScore s = PreservationScore.of(a, List.of(a, b));
        assertThat(s.qAlign()).isCloseTo(Math.sqrt(0.5), within(1e-6));
        assertThat(s.qCover()).isCloseTo(0.5, within(1e-6));
        assertThat(s.confidence()).isCloseTo((Math.sqrt(0.5) + 0.5) / 2, within(1e-6));
        assertThat(s.decayRate()).isCloseTo(1 - s.confidence(), within(1e-12));
        // opposite vectors: negative cosines are clamped in cover and in the confidence
        PreservationScore opposite = PreservationScore.of(new float[] {-1, 0}, List.of(a));
        assertThat(opposite.qCover()).isZero();
        assertThat(opposite.confidence()).isZero();
        assertThat(opposite.decayRate()).isEqualTo(1.0);
    }

    @Test
    void theGateRejectsDriftAndBlendsTheRest() {
        PreservationScore drifted = PreservationScore.fromParts(0.64, 0.9);
        assertThat(SummaryGate.DEFAULT.accept(drifted, 0.99)).isNull();
        PreservationScore atGate = PreservationScore.fromParts(0.65, 0.75);
        PreservationScore blended = SummaryGate.DEFAULT.accept(atGate, 0.5);
        assertThat(blended.confidence()).isCloseTo(0.8 * 0.7 + 0.2 * 0.5, within(1e-12));
        assertThat(blended.decayRate()).isCloseTo(1 - 0.66, within(1e-12));
    }

    @Test
    void theGuardRefusesTwoParticipantsOverMaxGeneration() {
        assertThat(GenerationGuard.DEFAULT.refuses(List.of(3, 1, 1))).isFalse();
        assertThat(GenerationGuard.DEFAULT.refuses(List.of(3, 3, 1))).isTrue();
        assertThat(GenerationGuard.DEFAULT.refuses(List.of(2, 2, 2, 2))).isFalse();
        assertThat(GenerationGuard.mergedGeneration(List.of(1, 2, 1))).isEqualTo(3);
    }

    @Test
    void theFloorChecksProvenanceAndDistinctTokenRetentionAtPointSix() {
        List<MergeInformationFloor.Participant> participants = List.of(
                new MergeInformationFloor.Participant("s1", "a b c d e", List.of("t1", "t2")),
                new MergeInformationFloor.Participant("s2", "f g h i j", List.of("t3")));
        // 10 distinct source tokens: 6 kept is exactly 0.6 -> passes; 5 kept fails
        MergeInformationFloor.Result atFloor = MergeInformationFloor.DEFAULT.check("a b c f g h",
                List.of("s1", "s2", "t1", "t2", "t3"), participants);
        assertThat(atFloor.passed()).isTrue();
        assertThat(atFloor.specificityRetention()).isCloseTo(0.6, within(1e-12));
        assertThat(atFloor.provenanceBefore()).isEqualTo(5);
        MergeInformationFloor.Result below = MergeInformationFloor.DEFAULT.check("a b c f g",
                List.of("s1", "s2", "t1", "t2", "t3"), participants);
        assertThat(below.passed()).isFalse();
        assertThat(below.reason()).contains("0.500 below 0.60");
        MergeInformationFloor.Result lostRefs = MergeInformationFloor.DEFAULT.check("a b c d e f g h i j",
                List.of("s1", "s2", "t1"), participants);
        assertThat(lostRefs.passed()).isFalse();
        assertThat(lostRefs.reason()).contains("lose 2 refs");
    }

    @Test
    void summaryIdsDependOnTheSetOfSourcesNotTheirOrder() {
        String id = SummaryId.of("acme", "s1", List.of("t3", "t1", "t2"));
        assertThat(id).isEqualTo(SummaryId.of("acme", "s1", List.of("t1", "t2", "t3")));
        assertThat(id).startsWith("sum-").hasSize(36);
        assertThat(id).isNotEqualTo(SummaryId.of("acme", "s2", List.of("t1", "t2", "t3")));
        assertThat(id).isNotEqualTo(SummaryId.of("other", "s1", List.of("t1", "t2", "t3")));
    }
}
