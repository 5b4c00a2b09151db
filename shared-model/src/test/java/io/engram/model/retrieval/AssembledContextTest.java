package io.engram.model.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class AssembledContextTest {

    private static AssembledContext.Included in(String id, RecordType type, String text, AssembledContext.Section section) {
        return new AssembledContext.Included(new ContextItem(id, type, text, 5, 0.5), section, "test");
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
    void anEmptyContextIsEmptyText() {
        assertThat(new AssembledContext(List.of(), List.of(), 0, 100, false, List.of()).promptText()).isEmpty();
    }
}
