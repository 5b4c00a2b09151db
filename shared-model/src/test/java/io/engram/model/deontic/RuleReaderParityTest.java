package io.engram.model.deontic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * The shipped rule-reader.onnx, run from Java, gives the probabilities the training tool computed for it in Python
 * (tools/train-rule-reader/train.py ship writes deontic/rule-reader-parity.tsv): same tokens, same input layout,
 * same model file.
 */
class RuleReaderParityTest {

    @Test
    void javaReadsEachSentenceAsTheTrainingToolDid() throws Exception {
        List<String[]> rows = fixture();
        assertThat(rows).hasSizeGreaterThanOrEqualTo(5);
        int rules = 0;
        try (RuleReader reader = RuleReader.shipped()) {
            for (String[] row : rows) {
                List<String> path = row[0].isEmpty() ? List.of() : List.of(row[0].split(" > "));
                float[] p = reader.probabilities(row[1], path);
                for (int c = 0; c < 4; c++) {
                    assertThat(p[c]).as(row[1] + " class " + c).isCloseTo(Float.parseFloat(row[2 + c]), within(2e-4f));
                }
                rules += reader.read(row[1], path).rule() ? 1 : 0;
            }
        }
        // the fixture holds sentences on both sides of the threshold, so a reader stuck on one answer fails it
        assertThat(rules).isBetween(1, rows.size() - 1);
    }

    private static List<String[]> fixture() throws Exception {
        List<String[]> rows = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(Objects.requireNonNull(
                RuleReaderParityTest.class.getResourceAsStream("/deontic/rule-reader-parity.tsv")), StandardCharsets.UTF_8))) {
            in.lines().filter(l -> !l.startsWith("#") && !l.startsWith("context\t"))
                    .forEach(l -> rows.add(l.split("\t", -1)));
        }
        return rows;
    }

    @Test
    void aRuleInAScriptTheReaderCannotReadIsConfirmedOnTheLexersWord() {
        assertThat(RuleReader.reads("- Never push to main.")).isTrue();
        assertThat(RuleReader.reads("- 不发半成品给任何外部渠道。")).isFalse();
        assertThat(ShippedRuleReader.READER.confirms("- 不发半成品给任何外部渠道。", List.of())).isTrue();
        // an English list item that states no rule is not confirmed, whatever the lexer thought
        assertThat(ShippedRuleReader.READER.confirms("- [Policies & Mandatory Rules](#policies--mandatory-rules)",
                List.of("# Table of Contents"))).isFalse();
    }
}
