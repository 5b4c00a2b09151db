package io.engram.model.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.compaction.SessionCompactor.SummaryRecord;
import io.engram.model.compaction.SessionCompactor.Turn;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SessionCompactorTest {

    private static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");
    private final HashingEmbedder embedder = new HashingEmbedder();
    private final ExtractiveSummarizer turns = new ExtractiveSummarizer(embedder, ExtractiveSummarizer.Options.TURNS);
    private final SessionCompactor compactor = new SessionCompactor(turns, SessionCompactor.Options.DEFAULT);

    private static List<Turn> session(int n) {
        String[] topics = {"hiking trip mountains weekend", "painting lake sunrise colours", "dog walk morning park",
                "job interview nervous prepared", "birthday party cake friends"};
        List<Turn> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String text = "turn " + i + " about " + topics[i % topics.length] + " and more details number " + i;
            list.add(new Turn("t" + i, i, i % 2 == 0 ? "user" : "assistant", text, T0.plusSeconds(60L * i), 12));
        }
        return list;
    }

    @Test
    void fewerThanKCompactableTurnsWait() {
        // 25 turns: the tail keeps 10 (12 tokens each within 128), leaving 15 < 20
        SessionCompactor.Outcome outcome = compactor.compact("acme", "s1", session(25), List.of(), false);
        assertThat(outcome.summaries()).isEmpty();
        assertThat(outcome.compactedTurnIds()).isEmpty();
    }

    @Test
    void twentyCompactableTurnsBecomeOneSummaryWithProvenance() {
        List<Turn> turns = session(30); // tail of 10, 20 compactable
        SessionCompactor.Outcome outcome = compactor.compact("acme", "s1", turns, List.of(), false);
        assertThat(outcome.summaries()).hasSize(1);
        SummaryRecord s = outcome.summaries().get(0);
        assertThat(s.generation()).isEqualTo(1);
        assertThat(s.sourceRefs()).hasSize(20).first().isEqualTo("t0");
        assertThat(outcome.compactedTurnIds()).isEqualTo(s.sourceRefs());
        assertThat(s.id()).isEqualTo(SummaryId.of("acme", "s1", s.sourceRefs()));
        assertThat(s.summaryTokens()).isLessThan(s.sourceTokens());
        assertThat(s.from()).isEqualTo(T0);
        assertThat(s.to()).isEqualTo(T0.plusSeconds(60L * 19));
        assertThat(s.score().confidence()).isBetween(0.0, 1.0);
        assertThat(s.score().decayRate()).isEqualTo(1 - s.score().confidence());
        // the summary keeps ceil(20 * 0.4) = 8 turns, in chronological order
        assertThat(s.text().split("\n")).hasSize(8);
    }

    @Test
    void asTheyComeAWindowClosesAsSoonAsKTurnsWaitBeforeTheTail() {
        List<Turn> turns = session(75); // a tail of 10
        // at once: 65 compactable turns, 4 clusters of 16-17, whose 4 summaries merge into one of generation 2
        SessionCompactor.Outcome once = compactor.compact("acme", "s1", turns, List.of(), false);
        assertThat(once.summaries()).singleElement().satisfies(s -> assertThat(s.generation()).isEqualTo(2));
        // as they come: turn 29 leaves 20 waiting before the tail, then turns 49 and 69; 15 still wait
        SessionCompactor.Outcome asTheyCome = compactor.compactAsTheyCome("acme", "s1", turns, List.of(), false);
        assertThat(asTheyCome.summaries()).extracting(s -> s.sourceRefs().get(0) + ".." + s.sourceRefs().get(19)
                + " (" + s.sourceRefs().size() + ")").containsExactly("t0..t19 (20)", "t20..t39 (20)", "t40..t59 (20)");
        assertThat(asTheyCome.compactedTurnIds()).hasSize(60);
        assertThat(asTheyCome.retiredSummaryIds()).isEmpty();

        // idle at the end: the 4 turns before the tail (t64 stays with its reply t65) make a fourth summary, and
        // the four merge into one
        SessionCompactor.Outcome idle = compactor.compactAsTheyCome("acme", "s1", turns, List.of(), true);
        assertThat(idle.summaries()).singleElement().satisfies(s -> {
            assertThat(s.generation()).isEqualTo(2);
            assertThat(s.sourceRefs()).hasSize(4 + 64).contains("t0", "t63").doesNotContain("t64");
        });
        assertThat(idle.compactedTurnIds()).hasSize(64);
        assertThat(idle.retiredSummaryIds()).as("only given summaries are reported retired").isEmpty();
    }

    @Test
    void aSingletonClusterIsNotCompacted() {
        // idle with 1 compactable turn: no cluster of two
        List<Turn> turns = session(11); // tail 10, 1 compactable
        SessionCompactor.Outcome outcome = compactor.compact("acme", "s1", turns, List.of(), true);
        assertThat(outcome.summaries()).isEmpty();
    }

    @Test
    void aSummaryNotShorterThanItsSourcesIsDeclined() {
        // two one-word turns: ceil(2 * 0.4) = 1 word is shorter; make every turn identical so density cannot help
        ExtractiveSummarizer never = new ExtractiveSummarizer(embedder,
                new ExtractiveSummarizer.Options(1.0, 1.0, ExtractiveSummarizer.Granularity.TURN));
        assertThat(never.summarize(List.of("alpha beta", "gamma delta"))).isEmpty();
        Optional<ExtractiveSummarizer.Summary> shorter = turns.summarize(List.of("alpha beta", "gamma delta"));
        assertThat(shorter).isPresent();
        assertThat(shorter.get().summaryTokens()).isEqualTo(2);
    }

    @Test
    void summariesPileUpIntoTheNextGenerationWithUnionProvenance() {
        List<SummaryRecord> existing = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            String distinctWords = "w" + i + "a w" + i + "b w" + i + "c w" + i + "d w" + i + "e";
            existing.add(new SummaryRecord("sum-" + i, "summary of part " + i + " " + distinctWords,
                    new float[64], List.of("t" + (2 * i), "t" + (2 * i + 1)), 1, PreservationScore.fromParts(0.9, 0.8),
                    T0.plusSeconds(i), T0.plusSeconds(i + 1), 40, 10));
        }
        SessionCompactor.Outcome outcome = compactor.compact("acme", "s1", session(5), existing, false);
        assertThat(outcome.summaries()).hasSize(1);
        SummaryRecord merged = outcome.summaries().get(0);
        assertThat(merged.generation()).isEqualTo(2);
        assertThat(merged.sourceRefs()).containsExactlyInAnyOrder("sum-0", "t0", "t1", "sum-1", "t2", "t3",
                "sum-2", "t4", "t5", "sum-3", "t6", "t7");
        assertThat(outcome.retiredSummaryIds()).containsExactly("sum-0", "sum-1", "sum-2", "sum-3");
        // two of four summaries kept, each with its own words: about half the distinct tokens, below 0.6 -> counted
        assertThat(outcome.floorViolations()).isEqualTo(1);
    }

    @Test
    void theGuardRefusesMergingOverGeneratedSummaries() {
        List<SummaryRecord> existing = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            existing.add(new SummaryRecord("sum-" + i, "old summary " + i, new float[64], List.of("x" + i), 3,
                    PreservationScore.fromParts(0.9, 0.8), T0, T0, 10, 5));
        }
        SessionCompactor.Outcome outcome = compactor.compact("acme", "s1", session(3), existing, false);
        assertThat(outcome.summaries()).isEmpty();
        assertThat(outcome.guardRefusals()).isEqualTo(1);
    }
}
