package io.engram.model.deontic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The combinations as the partitioner applies them, on sentences the shipped model reads far from its threshold. */
class ReaderRulesTest {

    private static final DeonticLexer LEXER = new DeonticLexer();
    private static final List<String> CONVENTIONS = List.of("# Guide", "## Commit Convention");
    private static final RuleReader reader = ShippedRuleReader.READER;

    private static List<Rule> read(ReaderCombination combination, String sentence, List<String> path) {
        return new ReaderRules(LEXER, reader, combination).sentence(sentence, SectionKind.of(path), path);
    }

    @Test
    void theLexerAloneIsTheLexersDecision() {
        String sentence = "Never add Co-Authored-By agents in commit message.";
        assertThat(read(ReaderCombination.LEXER, sentence, CONVENTIONS))
                .isEqualTo(LEXER.rules(sentence, SectionKind.of(CONVENTIONS)));
    }

    @Test
    void aSentenceTheModelReadsAsNoRuleIsDroppedWhenTheModelDecidesAndKeptWhenTheLexerFoundOne() {
        String fact = "The repository holds the server and its web console.";
        List<String> overview = List.of("## Project Overview");
        assertThat(reader.read(fact, overview).rule()).isFalse();
        assertThat(read(ReaderCombination.MODEL, fact, overview)).isEmpty();
        assertThat(read(ReaderCombination.MODEL_OR_LEXER, fact, overview)).isEmpty();
        String rule = "Never add Co-Authored-By agents in commit message.";
        assertThat(read(ReaderCombination.MODEL_AND_LEXER, rule, CONVENTIONS))
                .isEqualTo(LEXER.rules(rule, SectionKind.of(CONVENTIONS))).isNotEmpty();
    }

    @Test
    void aRuleOnlyTheModelFindsHasTheModelsModalityTheSentenceAsActionAndTheReadersTrigger() {
        // openclaw's Chinese SOUL.md: "Solve it yourself first, then ask." — no reading of the lexer takes it
        String sentence = "**先自己搞定，再来提问。** 读文件、搜索、分析上下文，实在卡住了再问。";
        List<String> path = List.of("# SOUL.md - 你是谁", "## 核心信念"); // its headings in data/agents-md
        assertThat(LEXER.rules(sentence, SectionKind.of(path))).isEmpty();
        assertThat(read(ReaderCombination.MODEL_OR_LEXER, sentence, path)).singleElement().satisfies(rule -> {
            assertThat(rule.trigger()).isEqualTo(Trigger.RULE_READER);
            assertThat(rule.modality()).isEqualTo(reader.read(sentence, path).modality());
            assertThat(rule.action()).isEqualTo("先自己搞定，再来提问。 读文件、搜索、分析上下文，实在卡住了再问。");
        });
        assertThat(read(ReaderCombination.MODEL_AND_LEXER, sentence, path)).isEmpty();
    }
}
