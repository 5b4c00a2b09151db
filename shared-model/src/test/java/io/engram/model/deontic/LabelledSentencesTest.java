package io.engram.model.deontic;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * Precision and recall of the deontic lexer on a labelled set of real sentences (most from the agent documents
 * in data/agents-md, some written for edge cases). The numbers are reported in docs/algorithms.md.
 */
class LabelledSentencesTest {

    record Labelled(String label, String source, String sentence) {
    }

    @Test
    void lexerFindsRulesWithPrecisionAndRecallAbove90Percent() throws Exception {
        List<Labelled> set = load();
        assertThat(set).hasSizeGreaterThanOrEqualTo(150);
        DeonticLexer lexer = new DeonticLexer();
        int tp = 0;
        int fp = 0;
        int fn = 0;
        int tn = 0;
        int modalityRight = 0;
        List<String> misses = new ArrayList<>();
        for (Labelled l : set) {
            List<Rule> rules = lexer.rules(l.sentence());
            boolean predicted = !rules.isEmpty();
            boolean actual = !l.label().equals("N");
            if (predicted && actual) {
                tp++;
                if (rules.get(0).modality().code().equals(l.label())) {
                    modalityRight++;
                } else {
                    misses.add("modality " + rules.get(0).modality().code() + " != " + l.label() + ": " + l.sentence());
                }
            } else if (predicted) {
                fp++;
                misses.add("false positive " + rules + ": " + l.sentence());
            } else if (actual) {
                fn++;
                misses.add("missed " + l.label() + ": " + l.sentence());
            } else {
                tn++;
            }
        }
        double precision = tp / (double) (tp + fp);
        double recall = tp / (double) (tp + fn);
        System.out.printf("deontic lexer on %d sentences (%d rules): precision %.3f, recall %.3f, "
                        + "modality accuracy %.3f (tp %d, fp %d, fn %d, tn %d)%n",
                set.size(), tp + fn, precision, recall, modalityRight / (double) tp, tp, fp, fn, tn);
        misses.forEach(m -> System.out.println("  " + m));
        assertThat(precision).isGreaterThanOrEqualTo(0.9);
        assertThat(recall).isGreaterThanOrEqualTo(0.9);
        assertThat(modalityRight / (double) tp).isGreaterThanOrEqualTo(0.9);
    }

    static List<Labelled> load() throws Exception {
        List<Labelled> set = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(Objects.requireNonNull(
                LabelledSentencesTest.class.getResourceAsStream("/deontic/labelled-sentences.tsv")),
                StandardCharsets.UTF_8))) {
            String line;
            boolean header = true;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("#")) {
                    continue;
                }
                if (header) {
                    header = false;
                    continue;
                }
                String[] parts = line.split("\t", 3);
                set.add(new Labelled(parts[0], parts[1], parts[2]));
            }
        }
        return set;
    }
}
