package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.engram.launcher.FactUpdates.Fact;
import io.engram.launcher.FactUpdates.Means;
import io.engram.launcher.FactUpdates.Memory;
import io.engram.launcher.FactUpdates.Version;
import io.engram.launcher.FactUpdates.Workload;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class FactUpdatesTest {

    private static final Instant WRITTEN = Instant.parse("2026-12-02T10:00:00Z");

    private static Workload workload(long seed) {
        return FactUpdates.generate(seed, 60, 6, 3);
    }

    @Test
    void theSameSeedMakesTheSameWorkloadAndAnotherSeedAnother() {
        assertThat(workload(7)).isEqualTo(workload(7));
        assertThat(workload(8).facts()).isNotEqualTo(workload(7).facts());
    }

    @Test
    void theDefaultSizeHasThreeHundredFactsOfFiftyUsersEachUpdatedOneToThreeTimesByEveryMeans() {
        Workload w = workload(7);
        assertThat(w.facts()).hasSize(360);
        assertThat(w.facts().stream().map(Fact::userId).distinct()).hasSize(60);
        assertThat(w.facts()).allSatisfy(f -> assertThat(f.versions().size() - 1).isBetween(1, 3));
        Map<Means, Long> byMeans = w.facts().stream().collect(Collectors.groupingBy(Fact::means, Collectors.counting()));
        assertThat(byMeans.keySet()).containsExactlyInAnyOrder(Means.values());
        assertThat(byMeans.values()).allSatisfy(n -> assertThat(n).isGreaterThan(80));
        int versions = w.facts().stream().mapToInt(f -> f.versions().size()).sum();
        assertThat(w.memories()).hasSize(versions + 60 * 3);
        assertThat(w.memories().stream().map(Memory::memoryId).distinct()).hasSize(w.memories().size());
    }

    @Test
    void eachFactIsTrueAtEachTimeAsItsVersionsSay() {
        for (Fact f : workload(7).facts()) {
            List<Version> v = f.versions();
            assertThat(f.at(v.get(0).from().minusSeconds(1))).isEmpty();
            for (int i = 0; i < v.size(); i++) {
                assertThat(f.at(v.get(i).from())).contains(v.get(i));
                if (i + 1 < v.size()) {
                    assertThat(f.pastTime(i)).isAfter(v.get(i).from()).isBefore(v.get(i + 1).from());
                    assertThat(f.at(f.pastTime(i))).contains(v.get(i));
                    assertThat(f.at(v.get(i + 1).from().minusSeconds(1))).contains(v.get(i));
                }
            }
            assertThat(f.at(WRITTEN)).contains(f.current());
            assertThat(v.stream().map(Version::value).distinct()).hasSize(v.size());
            assertThat(v.get(v.size() - 1).from()).isBefore(WRITTEN);
        }
    }

    @Test
    void eachMeansMarksTheUpdatesItsOwnWay() {
        Workload w = workload(7);
        Map<String, Memory> byId = w.memories().stream().collect(Collectors.toMap(Memory::memoryId, Function.identity()));
        for (Fact f : w.facts()) {
            List<Memory> said = f.versions().stream().map(v -> byId.get(v.memoryId())).toList();
            for (int i = 0; i < said.size(); i++) {
                Memory m = said.get(i);
                assertThat(m.userId()).isEqualTo(f.userId());
                assertThat(m.ts()).isEqualTo(f.versions().get(i).from());
                assertThat(m.text()).contains(f.user()).contains(f.versions().get(i).value());
                assertThat(m.expiresAt()).isNull();
                switch (f.means()) {
                    case SUPERSEDES -> assertThat(m.supersedes()).isEqualTo(i == 0 ? List.of()
                            : List.of(f.versions().get(i - 1).memoryId()));
                    case KEY -> assertThat(m.key()).isEqualTo("user." + f.attribute().key());
                    case VALIDITY -> {
                        assertThat(m.validFrom()).isEqualTo(m.ts());
                        assertThat(m.validUntil()).isEqualTo(i + 1 < said.size() ? said.get(i + 1).ts() : null);
                    }
                }
                if (f.means() != Means.KEY) {
                    assertThat(m.key()).isNull();
                }
            }
        }
    }

    @Test
    void otherMemoriesInterleaveByTimeAndNameNoValueAndTheNotesExpireAfterTheyAreWritten() {
        Workload w = workload(7);
        Set<String> values = new HashSet<>();
        FactUpdates.ATTRIBUTES.forEach(a -> values.addAll(a.values()));
        Set<String> factIds = new HashSet<>();
        w.facts().forEach(f -> f.versions().forEach(v -> factIds.add(v.memoryId())));
        assertThat(w.memories()).isSortedAccordingTo((a, b) -> a.ts().compareTo(b.ts()));
        assertThat(w.memories().stream().filter(m -> !factIds.contains(m.memoryId())))
                .hasSize(180).allSatisfy(m -> assertThat(values).noneMatch(m.text()::contains));
        List<Memory> expiring = w.expiring(WRITTEN, Duration.ofSeconds(90));
        assertThat(expiring).hasSize(60).allSatisfy(m -> {
            assertThat(m.ts()).isEqualTo(WRITTEN);
            assertThat(m.expiresAt()).isEqualTo(WRITTEN.plusSeconds(90));
            assertThat(values).noneMatch(m.text()::contains);
        });
        assertThat(expiring).extracting(Memory::memoryId).doesNotContainAnyElementsOf(
                w.memories().stream().map(Memory::memoryId).toList());
    }

    @Test
    void aSizeBeyondTheListsIsRefused() {
        assertThatThrownBy(() -> FactUpdates.generate(1, FactUpdates.USERS.size() + 1, 6, 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("users");
    }
}
