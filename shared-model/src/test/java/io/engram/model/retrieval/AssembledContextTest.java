package io.engram.model.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class AssembledContextTest {

    private static AssembledContext.Included in(String id, RecordType type, String text, AssembledContext.Section section) {
        return new AssembledContext.Included(new ContextItem(id, type, text, 5, 0.5), section, 5, "test");
    }

    private static AssembledContext.Included dated(String id, String text, ItemDate date, AssembledContext.Section section) {
        return new AssembledContext.Included(new ContextItem(id, RecordType.MEMORY, text, 5, 0.5, date), section, 9, "test");
    }

    @Test
    void thePromptTextHasAHeadingPerSectionAndEachItemWithItsId() {
        AssembledContext context = new AssembledContext(List.of(
                in("r1", RecordType.INVARIANT, "- Never log secrets.", AssembledContext.Section.HARD_RULES),
                in("r2", RecordType.INVARIANT, "2. Answer in English.", AssembledContext.Section.HARD_RULES),
                in("m1", RecordType.MEMORY, "Ann is allergic to hazelnuts.", AssembledContext.Section.MEMORIES),
                in("t1", RecordType.TURN, "Plan dinner\nfor Friday", AssembledContext.Section.RECENT_TAIL)),
                List.of(), 20, 100, false, List.of());

        assertThat(context.promptText()).isEqualTo("""
                ## Rules you must follow
                - Never log secrets. [r1]
                - Answer in English. [r2]

                ## What you remember
                - Ann is allergic to hazelnuts. [m1]

                ## The conversation so far
                - Plan dinner
                  for Friday [t1]
                """);
    }

    @Test
    void theDatedItemsOfASectionGoUnderTheirDayOrValidityWindowInTimeOrder() {
        Instant march2 = Instant.parse("2026-03-02T23:59:59Z");
        Instant march2Earlier = Instant.parse("2026-03-02T07:00:00Z");
        Instant january1 = Instant.parse("2026-01-01T00:00:00Z");
        Instant june30 = Instant.parse("2026-06-30T00:00:00Z");
        AssembledContext context = new AssembledContext(List.of(
                in("r1", RecordType.INVARIANT, "Never log secrets.", AssembledContext.Section.HARD_RULES),
                dated("m1", "Ann moved to Berlin.", ItemDate.at(march2), AssembledContext.Section.MEMORIES),
                dated("m2", "Ann works at Acme.", new ItemDate(march2, january1, june30), AssembledContext.Section.MEMORIES),
                dated("m3", "Ann is vegan.", new ItemDate(march2, march2, null), AssembledContext.Section.MEMORIES),
                dated("m4", "Ann is in Lisbon.", new ItemDate(march2, null, june30), AssembledContext.Section.MEMORIES),
                dated("m5", "Ann sold her flat.", ItemDate.at(march2Earlier), AssembledContext.Section.MEMORIES),
                dated("s1", "Ann looked for a flat in Berlin.", new ItemDate(march2, null, null,
                        Instant.parse("2026-02-20T18:00:00Z")), AssembledContext.Section.MEMORIES),
                in("m6", RecordType.MEMORY, "Undated.", AssembledContext.Section.MEMORIES),
                dated("t1", "Book it.", ItemDate.at(march2), AssembledContext.Section.RECENT_TAIL)),
                List.of(), 50, 100, false, List.of());

        // dates by their start (a window with none by the day it was said, a summary's span by its first day, ties
        // by their line); within a date, in the order said
        assertThat(context.promptText()).isEqualTo("""
                ## Rules you must follow
                - Never log secrets. [r1]

                ## What you remember
                - Undated. [m6]
                valid 1 Jan 2026 to 30 Jun 2026:
                - Ann works at Acme. [m2]
                20 Feb 2026 to 2 Mar 2026:
                - Ann looked for a flat in Berlin. [s1]
                2 Mar 2026:
                - Ann sold her flat. [m5]
                - Ann moved to Berlin. [m1]
                valid from 2 Mar 2026:
                - Ann is vegan. [m3]
                valid until 30 Jun 2026:
                - Ann is in Lisbon. [m4]

                ## The conversation so far
                2 Mar 2026:
                - Book it. [t1]
                """);
    }

    @Test
    void anEmptyContextIsEmptyText() {
        assertThat(new AssembledContext(List.of(), List.of(), 0, 100, false, List.of()).promptText()).isEmpty();
    }
}
