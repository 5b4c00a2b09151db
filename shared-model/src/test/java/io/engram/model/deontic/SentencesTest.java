package io.engram.model.deontic;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.deontic.LabelledSentencesTest.Labelled;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SentencesTest {

    @Test
    void aParagraphEndsItsSentencesAtAMarkBeforeACapitalNotAfterAnAbbreviationOrOneLetter() {
        assertThat(Sentences.of("Use `uv`, e.g. `uv run pytest`. Never call pip\ndirectly! Why? See **Docs.** done"))
                .containsExactly("Use `uv`, e.g. `uv run pytest`.", "Never call pip directly!", "Why?",
                        "See **Docs.** done");
        assertThat(Sentences.of("Version 1.2.3 is out. It runs on Node v22.")).containsExactly("Version 1.2.3 is out.",
                "It runs on Node v22.");
        assertThat(Sentences.of("  \n ")).isEmpty();
    }

    @Test
    void aListItemIsItsOwnTextWithoutMarkerOrNestedList() {
        assertThat(Sentences.ofItem("- **Build:** `zig build`\n  - If on macOS, use\n    `-Dfoo`")).isEqualTo("**Build:** `zig build`");
        assertThat(Sentences.ofItem("12. Run the tests\n    before you commit.")).isEqualTo("Run the tests before you commit.");
        assertThat(Sentences.ofItem("* Never push to `main`.")).isEqualTo("Never push to `main`.");
    }

    /** The development sets with a block column: their paragraphs, joined, cut back into the labelled sentences. */
    @Test
    void cutsTheDevelopmentSetsParagraphsAsTheirLabellersDid() throws Exception {
        int paragraphs = 0;
        int same = 0;
        for (String file : List.of("sixth-set-sentences.tsv", "seventh-set-sentences.tsv", "eighth-set-sentences.tsv")) {
            Map<String, List<String>> byParagraph = new LinkedHashMap<>();
            for (Labelled l : LabelledSentencesTest.load("/deontic/" + file)) {
                if (l.block().startsWith("p")) {
                    byParagraph.computeIfAbsent(l.source() + " " + l.block(), k -> new ArrayList<>()).add(l.sentence());
                }
            }
            for (List<String> sentences : byParagraph.values()) {
                paragraphs++;
                same += Sentences.of(String.join(" ", sentences)).equals(sentences) ? 1 : 0;
            }
        }
        System.out.printf("Sentences cuts %d of %d development paragraphs as labelled%n", same, paragraphs);
        assertThat(same).isGreaterThanOrEqualTo((int) Math.ceil(paragraphs * 0.95));
    }
}
