package io.engram.model.deontic;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.deontic.LabelledSentencesTest.Labelled;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The lexer alone, the rule reader alone and their combination (as rule-reader.properties names it, chosen on the
 * development sets) on the two judges: the ninth and tenth sets, which nothing was trained, tuned or chosen on.
 * Only aggregate scores are printed, each with a 95 % Wilson interval; never a sentence. The floors are the
 * measured scores (docs/benchmarks.md), so a change that reads the judges worse fails here.
 */
class RuleReaderJudgesTest {

    private static final DeonticLexer LEXER = new DeonticLexer();
    private static final RuleReader reader = ShippedRuleReader.READER;

    /** Confusion counts of one way of reading on one set. */
    record Counts(int tp, int fp, int fn, int modalityRight) {
        double precision() {
            return tp / (double) (tp + fp);
        }

        double recall() {
            return tp / (double) (tp + fn);
        }

        String report(String name) {
            return String.format("  %-32s precision %.3f %s, recall %.3f %s, modality %.3f %s (tp %d, fp %d, fn %d)", name,
                    precision(), wilson(tp, tp + fp), recall(), wilson(tp, tp + fn), modalityRight / (double) tp,
                    wilson(modalityRight, tp), tp, fp, fn);
        }
    }

    /** The 95 % Wilson score interval of k successes in n trials. */
    static String wilson(int k, int n) {
        double z = 1.96;
        double p = k / (double) n;
        double centre = (p + z * z / (2 * n)) / (1 + z * z / n);
        double half = z * Math.sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / (1 + z * z / n);
        return String.format("[%.2f, %.2f]", centre - half, centre + half);
    }

    static Counts score(List<Labelled> set, ReaderCombination combination) {
        int tp = 0;
        int fp = 0;
        int fn = 0;
        int right = 0;
        for (Labelled l : set) {
            List<String> path = LabelledSentencesTest.headingPath(l.section());
            List<Rule> rules = LEXER.rules(l.sentence(), SectionKind.of(path));
            RuleReader.Reading reading = combination == ReaderCombination.LEXER ? null : reader.read(l.sentence(), path);
            boolean predicted = combination.isRule(!rules.isEmpty(), reading != null && reading.rule());
            boolean actual = !l.label().equals("N");
            if (predicted && actual) {
                tp++;
                Modality modality = combination.modality(rules.isEmpty() ? null : rules.get(0).modality(),
                        reading == null ? null : reading.modality());
                right += modality.code().equals(l.label()) ? 1 : 0;
            } else if (predicted) {
                fp++;
            } else if (actual) {
                fn++;
            }
        }
        return new Counts(tp, fp, fn, right);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            ninth-set-sentences.tsv | 149 | 0.87 | 0.74 | 0.93 | 0.69 | 0.85 | 0.84
            tenth-set-sentences.tsv | 209 | 0.90 | 0.85 | 0.81 | 0.80 | 0.80 | 0.91
            """)
    void lexerModelAndTheirCombinationOnAJudge(String file, int sentences, double lexerPrecision, double lexerRecall,
                                                double modelPrecision, double modelRecall, double combinedPrecision,
                                                double combinedRecall) throws Exception {
        List<Labelled> set = LabelledSentencesTest.load("/deontic/" + file);
        assertThat(set).hasSize(sentences);
        ReaderCombination chosen = ReaderCombination.ofLabel(reader.combination());
        Counts lexer = score(set, ReaderCombination.LEXER);
        Counts model = score(set, ReaderCombination.MODEL);
        Counts combined = score(set, chosen);
        System.out.printf("%s, %d sentences (%d rules), reader threshold %.2f:%n%s%n%s%n%s%n", file, sentences,
                lexer.tp() + lexer.fn(), reader.threshold(), lexer.report("lexer alone"), model.report("model alone"),
                combined.report(chosen.label()));
        assertThat(lexer.precision()).isGreaterThanOrEqualTo(lexerPrecision);
        assertThat(lexer.recall()).isGreaterThanOrEqualTo(lexerRecall);
        assertThat(model.precision()).isGreaterThanOrEqualTo(modelPrecision);
        assertThat(model.recall()).isGreaterThanOrEqualTo(modelRecall);
        assertThat(combined.precision()).isGreaterThanOrEqualTo(combinedPrecision);
        assertThat(combined.recall()).isGreaterThanOrEqualTo(combinedRecall);
    }
}
