package io.engram.model.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.retrieval.AssembledContext.Section;
import io.engram.model.tokens.TokenEstimate;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ContextAssemblerTest {

    private final ContextAssembler assembler = new ContextAssembler(0.3, ContextAssembler.KEEP_DUPLICATES,
            TokenEstimate.INSTANCE);

    private static ContextItem item(String id, RecordType type, int tokens, double score) {
        return new ContextItem(id, type, id, tokens, score);
    }

    private static List<String> ids(AssembledContext c, Section section) {
        return c.included().stream().filter(i -> i.section() == section).map(i -> i.item().id()).toList();
    }

    @Test
    void sectionsFillInPrecedenceOrderWithinTheBudget() {
        AssembledContext c = assembler.assemble(100,
                List.of(item("h1", RecordType.INVARIANT, 10, 0)),
                List.of(item("t1", RecordType.TURN, 20, 0)),
                List.of(item("s1", RecordType.INVARIANT, 15, 0), item("s2", RecordType.INVARIANT, 10, 0),
                        item("s3", RecordType.INVARIANT, 1, 0)),
                List.of(item("m1", RecordType.MEMORY, 30, 0.4), item("m2", RecordType.LORE, 40, 0.9),
                        item("m3", RecordType.SUMMARY, 25, 0.5), item("m4", RecordType.MEMORY, 5, 0.1)));
        assertThat(ids(c, Section.HARD_RULES)).containsExactly("h1");
        assertThat(ids(c, Section.RECENT_TAIL)).containsExactly("t1");
        // soft limit min(30, 100 - 10 - 20) = 30: s1 + s2 = 25 fit, s3 would fit too (26) -> all kept
        assertThat(ids(c, Section.SOFT_RULES)).containsExactly("s1", "s2", "s3");
        // 100 - 10 - 20 - 26 = 44 left: m2 (40) fits, m3 (25) does not, m1 (30) does not, m4 (5) does not (4 left)
        assertThat(ids(c, Section.MEMORIES)).containsExactly("m2");
        assertThat(c.tokensUsed()).isEqualTo(96);
        assertThat(c.degraded()).isFalse();
        assertThat(c.excluded()).extracting(e -> e.item().id()).containsExactly("m3", "m1", "m4");
        assertThat(c.excluded().get(2).reason()).contains("needs 5 tokens, 4 left");
        // rendering order: hard rules, soft rules, memories, tail
        assertThat(c.included()).extracting(i -> i.item().id()).containsExactly("h1", "s1", "s2", "s3", "m2", "t1");
    }

    @Test
    void softRulesAreALongestPrefixUnderAlpha2Tau() {
        AssembledContext c = assembler.assemble(100, List.of(), List.of(),
                List.of(item("s1", RecordType.INVARIANT, 20, 0), item("s2", RecordType.INVARIANT, 11, 0),
                        item("s3", RecordType.INVARIANT, 1, 0)), List.of());
        // floor(0.3 * 100) = 30: s1 fits, s2 would make 31, so s2 and everything after are cut
        assertThat(ids(c, Section.SOFT_RULES)).containsExactly("s1");
        assertThat(c.excluded()).extracting(e -> e.item().id()).containsExactly("s2", "s3");
        assertThat(c.excluded().get(0).reason()).contains("= 30 tokens");
    }

    @Test
    void softRulesShrinkToWhatHardRulesAndTheTailLeave() {
        AssembledContext c = assembler.assemble(100, List.of(item("h", RecordType.INVARIANT, 60, 0)),
                List.of(item("t", RecordType.TURN, 25, 0)),
                List.of(item("s1", RecordType.INVARIANT, 10, 0), item("s2", RecordType.INVARIANT, 10, 0)), List.of());
        // min(30, 100 - 60 - 25 = 15): s1 only
        assertThat(ids(c, Section.SOFT_RULES)).containsExactly("s1");
        assertThat(c.tokensUsed()).isEqualTo(95);
    }

    private static ContextItem rule(String id, String text, int tokens) {
        return new ContextItem(id, RecordType.INVARIANT, text, tokens, 0);
    }

    @Test
    void hardRulesLargerThanTheBudgetAreTakenBindingFirstThenNearestTheQueryAndTheRestListed() {
        List<ContextItem> rules = List.of(rule("p", "- You may rebase feature branches.", 20),
                rule("o1", "- Always run the linter before a commit.", 20),
                rule("o2", "- Always write migrations for schema changes.", 20),
                rule("f", "- Never push to main.", 20));
        AssembledContext c = assembler.assemble(50, "how do I change the database schema?", false, rules,
                List.of(item("t", RecordType.TURN, 10, 0)), List.of(item("s", RecordType.INVARIANT, 1, 0)),
                List.of(item("m", RecordType.MEMORY, 1, 1.0)));
        // binding rules first, the one holding a query word ("schema") before the others, then the prohibition;
        // the permission would not fit; shown in document order
        assertThat(ids(c, Section.HARD_RULES)).containsExactly("o2", "f");
        assertThat(c.excluded()).filteredOn(e -> e.section() == Section.HARD_RULES).extracting(e -> e.item().id())
                .containsExactlyInAnyOrder("p", "o1");
        assertThat(c.excluded()).filteredOn(e -> e.section() == Section.HARD_RULES)
                .allMatch(e -> e.reason().contains("80 tokens, over the budget of 50"));
        assertThat(c.degradedReasons().get(0)).isEqualTo("hard rules take 80 tokens, over the budget of 50: 2 of 4 "
                + "taken (prohibitions and obligations first, then nearest the query), the others in excluded");
        // the 10 tokens left take the tail's turn; nothing else fits
        assertThat(ids(c, Section.RECENT_TAIL)).containsExactly("t");
        assertThat(ids(c, Section.MEMORIES)).isEmpty();
        assertThat(c.tokensUsed()).isEqualTo(50).isLessThanOrEqualTo(c.budget());
    }

    @Test
    void everyRuleAskedForIsKeptOverTheBudgetAndSaysByHowMuch() {
        AssembledContext c = assembler.assemble(50, null, true, List.of(item("h1", RecordType.INVARIANT, 40, 0),
                        item("h2", RecordType.INVARIANT, 30, 0)), List.of(item("t", RecordType.TURN, 10, 0)),
                List.of(item("s", RecordType.INVARIANT, 1, 0)), List.of(item("m", RecordType.MEMORY, 1, 1.0)));
        assertThat(c.degradedReasons()).containsExactly(
                "every hard rule asked for: they take 70 tokens, 20 over the budget of 50",
                "the recent tail takes 10 tokens: its newest 0 of 1 turns fit the 0 tokens left after the hard rules");
        assertThat(ids(c, Section.HARD_RULES)).containsExactly("h1", "h2");
        assertThat(ids(c, Section.RECENT_TAIL)).isEmpty();
        assertThat(ids(c, Section.MEMORIES)).isEmpty();
        assertThat(c.tokensUsed()).isEqualTo(70);
    }

    @Test
    void aTailOverTheBudgetKeepsItsNewestTurnsAndListsTheOlder() {
        AssembledContext c = assembler.assemble(50, List.of(item("h", RecordType.INVARIANT, 30, 0)),
                List.of(item("t1", RecordType.TURN, 15, 0), item("t2", RecordType.TURN, 15, 0)), List.of(), List.of());
        assertThat(c.degraded()).isTrue();
        assertThat(ids(c, Section.RECENT_TAIL)).containsExactly("t2");
        assertThat(c.excluded()).singleElement().satisfies(e -> {
            assertThat(e.item().id()).isEqualTo("t1");
            assertThat(e.section()).isEqualTo(Section.RECENT_TAIL);
        });
        assertThat(c.degradedReasons().get(0)).isEqualTo(
                "the recent tail takes 30 tokens: its newest 1 of 2 turns fit the 20 tokens left after the hard rules");
        assertThat(c.tokensUsed()).isEqualTo(45);
    }

    @Test
    void noBudgetIsExceededWhateverTheRulesTailAndMemoriesTake() {
        java.util.Random random = new java.util.Random(7);
        for (int round = 0; round < 500; round++) {
            int budget = 1 + random.nextInt(400);
            List<ContextItem> hard = new java.util.ArrayList<>();
            List<ContextItem> tail = new java.util.ArrayList<>();
            List<ContextItem> soft = new java.util.ArrayList<>();
            List<ContextItem> memories = new java.util.ArrayList<>();
            for (int i = random.nextInt(8); i > 0; i--) {
                hard.add(rule("h" + i + "-" + round, random.nextBoolean() ? "- Never do thing " + i : "- note " + i,
                        random.nextInt(120)));
            }
            for (int i = random.nextInt(6); i > 0; i--) {
                tail.add(new ContextItem("t" + i, RecordType.TURN, "turn " + i, random.nextInt(80), 0,
                        ItemDate.at(Instant.parse("2026-01-01T00:00:00Z").plusSeconds(86_400L * i))));
            }
            for (int i = random.nextInt(6); i > 0; i--) {
                soft.add(item("s" + i, RecordType.INVARIANT, random.nextInt(60), 0));
                memories.add(new ContextItem("m" + i, RecordType.MEMORY, "memory " + i, random.nextInt(90),
                        random.nextDouble(), ItemDate.at(Instant.parse("2025-06-01T00:00:00Z").plusSeconds(3600L * i))));
            }
            AssembledContext c = assembler.assemble(budget, "thing", false, hard, tail, soft, memories);
            assertThat(c.tokensUsed()).as("round %d", round).isLessThanOrEqualTo(budget)
                    .isEqualTo(c.included().stream().mapToInt(AssembledContext.Included::tokens).sum());
        }
    }

    @Test
    void exactlyTheBudgetIsNotDegradedAndAMemoryAlreadyInTheTailIsNotRepeated() {
        AssembledContext c = assembler.assemble(50, List.of(item("h", RecordType.INVARIANT, 20, 0)),
                List.of(item("t", RecordType.TURN, 20, 0)), List.of(),
                List.of(item("t", RecordType.TURN, 20, 0.99), item("m", RecordType.MEMORY, 10, 0.5)));
        assertThat(c.degraded()).isFalse();
        assertThat(c.tokensUsed()).isEqualTo(50);
        assertThat(ids(c, Section.MEMORIES)).containsExactly("m");
        assertThat(c.excluded()).singleElement().satisfies(e -> assertThat(e.reason()).isEqualTo("already in the context"));
    }

    @Test
    void aMemoryTheContextAlreadySaysIsLeftOutAndItsBudgetGoesToTheNext() {
        ContextItem turn = new ContextItem("turn", RecordType.TURN, "I have been vegetarian for ten years.", 9, 0.9);
        ContextItem memory = new ContextItem("memory", RecordType.MEMORY, "Vegetarian for ten years", 5, 0.8);
        ContextItem other = new ContextItem("other", RecordType.MEMORY, "The hotel needs a lift.", 6, 0.7);
        ContextAssembler deduplicating = new ContextAssembler(0.3, 0.8, TokenEstimate.INSTANCE);

        AssembledContext c = deduplicating.assemble(15, List.of(), List.of(), List.of(), List.of(memory, turn, other));

        // the turn (best score) goes in; the memory's three word pairs are all in it; the freed room takes "other"
        assertThat(ids(c, Section.MEMORIES)).containsExactly("turn", "other");
        assertThat(c.tokensUsed()).isEqualTo(15);
        assertThat(c.excluded()).singleElement().satisfies(e -> {
            assertThat(e.item().id()).isEqualTo("memory");
            assertThat(e.reason()).contains("near-duplicate: 100% of its word pairs");
        });
        // kept, the memory takes the room and "other" no longer fits
        assertThat(ids(assembler.assemble(15, List.of(), List.of(), List.of(), List.of(memory, turn, other)),
                Section.MEMORIES)).containsExactly("turn", "memory");
    }

    @Test
    void aMemoryRepeatingARuleIsAlreadySaid() {
        ContextItem rule = new ContextItem("rule", RecordType.INVARIANT, "- Never log secrets.", 4, 0);
        ContextItem memory = new ContextItem("memory", RecordType.LESSON, "never log secrets", 3, 0.9);
        AssembledContext c = new ContextAssembler(0.3, 0.8, TokenEstimate.INSTANCE).assemble(100, List.of(rule), List.of(), List.of(),
                List.of(memory));
        assertThat(ids(c, Section.MEMORIES)).isEmpty();
        assertThat(c.excluded()).extracting(e -> e.item().id()).containsExactly("memory");
    }

    @Test
    void aDatedItemCostsItsDateLineWhenItIsTheFirstOfItsDateInItsSection() {
        // "2 Mar 2026:\n" is 12 characters: 3 tokens by the estimate
        ItemDate day = ItemDate.at(Instant.parse("2026-03-02T10:00:00Z"));
        ItemDate earlierThatDay = ItemDate.at(Instant.parse("2026-03-02T08:00:00Z"));
        ItemDate nextDay = ItemDate.at(Instant.parse("2026-03-03T08:00:00Z"));
        AssembledContext c = assembler.assemble(28, List.of(item("h", RecordType.INVARIANT, 3, 0)),
                List.of(new ContextItem("t", RecordType.TURN, "t", 10, 0, day)), List.of(),
                List.of(new ContextItem("m1", RecordType.MEMORY, "m1", 8, 0.9, day),
                        new ContextItem("m2", RecordType.MEMORY, "m2", 1, 0.5, earlierThatDay),
                        new ContextItem("m3", RecordType.MEMORY, "m3", 1, 0.4, nextDay)));
        // 3 + 13 = 16 for the rule and the tail; m1 takes 11 of the 12 left, m2 the last one (its date line is
        // there), m3 would need a line of its own
        assertThat(ids(c, Section.MEMORIES)).containsExactly("m1", "m2");
        assertThat(c.included()).extracting(AssembledContext.Included::tokens).containsExactly(3, 11, 1, 13);
        assertThat(c.tokensUsed()).isEqualTo(28);
        assertThat(c.excluded()).singleElement().satisfies(e -> assertThat(e.reason()).endsWith("needs 4 tokens, 0 left"));
        // the tail has its own date line: each section reads on its own
        assertThat(c.promptText()).isEqualTo("""
                ## Rules you must follow
                - h [h]

                ## What you remember
                2 Mar 2026:
                - m2 [m2]
                - m1 [m1]

                ## The conversation so far
                2 Mar 2026:
                - t [t]
                """);
    }
}
