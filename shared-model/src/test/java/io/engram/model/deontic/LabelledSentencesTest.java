package io.engram.model.deontic;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.partition.NodeKind;
import io.engram.model.partition.TierAssignment;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Precision, recall and modality accuracy of the deontic lexer on nine labelled sets of real sentences, each read
 * under its heading path ({@link SectionKind}): labelled-sentences.tsv (the agent documents in data/agents-md, which
 * the lexer's word lists were extended on), unseen-sentences.tsv (20 other agent documents, issue 26's first round),
 * held-out-sentences.tsv (10 more, judged on in the second round and tuned on in the third),
 * fourth-set-sentences.tsv (9 more, judged on in the third round and tuned on in the fourth),
 * fifth-set-sentences.tsv (8 more, judged on in the fourth round and tuned on in the fifth),
 * sixth-set-sentences.tsv (9 more, judged on in the fifth round and tuned on in the sixth),
 * seventh-set-sentences.tsv (10 more, judged on in the sixth round and tuned on in the seventh),
 * eighth-set-sentences.tsv (10 more, judged on in the seventh round and tuned on in the eighth),
 * ninth-set-sentences.tsv (12 more, judged on in the eighth round, its misses not printed) and
 * tenth-set-sentences.tsv (11 more, frozen before any reader read it; with the ninth, a judge of the learned rule
 * reader, RuleReaderJudgesTest; its misses not printed).
 * The numbers are reported in docs/benchmarks.md.
 */
class LabelledSentencesTest {

    /** One labelled sentence; {@code half}, {@code section} and {@code block} are empty where the set has no such column. */
    record Labelled(String label, String half, String source, String section, String block, String sentence) {
    }

    /**
     * A lexer's confusion counts on a set, what it got wrong, and which reading ({@link Trigger#reading}) found the
     * first rule of each sentence it read as a rule: its true and false positives.
     */
    record Score(int tp, int fp, int fn, int tn, int modalityRight, List<String> misses,
                 Map<String, Integer> tpByReading, Map<String, Integer> fpByReading) {
        double precision() {
            return tp / (double) (tp + fp);
        }

        double recall() {
            return tp / (double) (tp + fn);
        }

        double modalityAccuracy() {
            return modalityRight / (double) tp;
        }

        String report(String name) {
            return String.format("%s, %d sentences (%d rules): precision %.3f, recall %.3f, modality accuracy %.3f"
                            + " (tp %d, fp %d, fn %d, tn %d, modality right %d)", name, tp + fp + fn + tn, tp + fn,
                    precision(), recall(), modalityAccuracy(), tp, fp, fn, tn, modalityRight);
        }

        /** One line per reading: its true and false positives, its precision, and the share of the rules it found. */
        List<String> byReading() {
            Set<String> readings = new TreeSet<>(tpByReading.keySet());
            readings.addAll(fpByReading.keySet());
            return readings.stream().map(r -> {
                int t = tpByReading.getOrDefault(r, 0);
                int f = fpByReading.getOrDefault(r, 0);
                return String.format("%-26s tp %3d, fp %2d: precision %.3f, recall %.3f", r, t, f,
                        t / (double) (t + f), t / (double) (tp + fn));
            }).toList();
        }
    }

    static Score score(DeonticLexer lexer, List<Labelled> set) {
        int tp = 0;
        int fp = 0;
        int fn = 0;
        int tn = 0;
        int modalityRight = 0;
        List<String> misses = new ArrayList<>();
        Map<String, Integer> tpByReading = new TreeMap<>();
        Map<String, Integer> fpByReading = new TreeMap<>();
        for (Labelled l : set) {
            List<Rule> rules = rulesOf(lexer, l);
            boolean predicted = !rules.isEmpty();
            boolean actual = !l.label().equals("N");
            if (predicted) {
                (actual ? tpByReading : fpByReading).merge(rules.get(0).trigger().reading(), 1, Integer::sum);
            }
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
        return new Score(tp, fp, fn, tn, modalityRight, misses, tpByReading, fpByReading);
    }

    /**
     * Scores and prints the counts, and each reading's and each miss unless the set is one only judged on (reading
     * them is tuning).
     */
    private static Score scoreAndPrint(String name, List<Labelled> set, boolean printMisses) {
        Score s = score(new DeonticLexer(), set);
        assertThat(s.tpByReading().values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(s.tp());
        assertThat(s.fpByReading().values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(s.fp());
        System.out.println("deontic lexer on " + s.report(name));
        if (printMisses) {
            s.byReading().forEach(r -> System.out.println("  by reading: " + r));
            s.misses().forEach(m -> System.out.println("  " + m));
        }
        return s;
    }

    @Test
    void lexerFindsRulesWithPrecisionAndRecallAbove90PercentOnTheSetItWasExtendedOn() throws Exception {
        List<Labelled> set = load("/deontic/labelled-sentences.tsv");
        assertThat(set).hasSizeGreaterThanOrEqualTo(150);
        assertAtLeast(scoreAndPrint("labelled-sentences.tsv", set, true), 0.9, 0.9, 0.9);
    }

    @Test
    void lexerOnTheFirstUnseenSetWhichIsNowADevelopmentSet() throws Exception {
        List<Labelled> set = load("/deontic/unseen-sentences.tsv");
        assertThat(set).hasSizeGreaterThanOrEqualTo(300);
        assertThat(set.stream().map(Labelled::source).distinct()).hasSizeGreaterThanOrEqualTo(20);
        Predicate<Labelled> heldOut = l -> l.half().equals("held-out");
        // Its held-out half was judged on in issue 26's first round (recall 0.621 -> 0.828); its misses were read
        // after that, so the second round tuned on both halves and judges on held-out-sentences.tsv instead.
        Score dev = scoreAndPrint("unseen-sentences.tsv dev half", set.stream().filter(heldOut.negate()).toList(), true);
        Score former = scoreAndPrint("unseen-sentences.tsv former held-out half",
                set.stream().filter(heldOut).toList(), true);
        assertAtLeast(dev, 0.95, 0.94, 0.98);
        assertAtLeast(former, 0.95, 0.94, 0.98);
    }

    /**
     * The sets built one per round of issue 26, each frozen and judged on in one round (its misses not printed)
     * and tuned on in the next (precision, recall, modality):
     * <ul>
     * <li>held-out-sentences.tsv: judged in the second round (frozen 0.984, 0.733, 0.952; after it 0.922, 0.826,
     * 0.958), tuned on in the third: 0.975, 0.907, 1.000 (recall 0.919 after the fifth);
     * <li>fourth-set-sentences.tsv: judged in the third (0.945, 0.896, 1.000, unchanged), tuned on in the fourth:
     * 0.986, 0.948, 1.000 (precision 1.000 after the fifth);
     * <li>fifth-set-sentences.tsv: judged in the fourth (frozen 0.951, 0.895, 0.987; after it 0.951, 0.907, 0.987),
     * tuned on in the fifth: 0.966, 0.977, 0.988 (0.965, 0.965 after the seventh, whose quotation reading drops a
     * rule found only inside quotes: "**Acknowledge**: Short and punchy. ("Bet.", "Copy that.")");
     * <li>sixth-set-sentences.tsv: judged in the fifth (frozen 0.906, 0.841, 0.983; unchanged by its readings, then
     * 0.935, 0.841, 0.983 once WordNet's verbs replaced the ending test), tuned on in the sixth: 0.955, 0.913, 0.984
     * (recall 0.928 after the seventh);
     * <li>seventh-set-sentences.tsv: judged in the sixth (frozen 0.933, 0.808, 0.917; unchanged by its readings),
     * tuned on in the seventh: 0.967, 0.856, 1.000;
     * <li>eighth-set-sentences.tsv: built at the end of the sixth, judged in the seventh (0.940, 0.887, 1.000 with the
     * fifth, sixth and seventh rounds' lexers alike), tuned on in the eighth: 0.957, 0.930, 1.000;
     * <li>ninth-set-sentences.tsv: built at the end of the seventh, judged in the eighth (0.871, 0.744, 0.967 with the
     * seventh and eighth rounds' lexers alike; 0.870, 0.732, 0.983 with the sixth's);
     * <li>tenth-set-sentences.tsv: built for the learned reader (issue 47), read by the eighth round's lexer: 0.901,
     * 0.859, 1.000.
     * </ul>
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            held-out-sentences.tsv   | 180 | 10 | true  | 0.97 | 0.90 | 1.0
            fourth-set-sentences.tsv | 168 |  9 | true  | 1.0  | 0.94 | 1.0
            fifth-set-sentences.tsv  | 134 |  8 | true  | 0.96 | 0.96 | 0.98
            sixth-set-sentences.tsv  | 169 |  9 | true  | 0.95 | 0.92 | 0.98
            seventh-set-sentences.tsv | 194 | 10 | true  | 0.96 | 0.85 | 1.0
            eighth-set-sentences.tsv  | 144 | 10 | true  | 0.95 | 0.92 | 1.0
            ninth-set-sentences.tsv   | 149 | 12 | false | 0.87 | 0.74 | 0.96
            tenth-set-sentences.tsv   | 209 | 11 | false | 0.90 | 0.85 | 1.0
            """)
    void lexerOnTheSetsBuiltOnePerRound(String file, int sentences, int documents, boolean printMisses,
                                        double precision, double recall, double modalityAccuracy) throws Exception {
        assertAtLeast(scoreAndPrint(file, documentSet(file, sentences, documents), printMisses),
                precision, recall, modalityAccuracy);
    }

    /**
     * What a missed rule costs the partition (docs/contracts.md §A.2): a list item is hard tier whatever the lexer
     * finds, but a paragraph is soft tier only if the lexer finds a rule in one of its sentences, and is lore
     * otherwise. Read on the paragraphs of the sets that have a block column; with the lexer each set was frozen with,
     * the sixth set's rule-bearing paragraphs were 14 of 17 soft tier (1 of 19 others), the seventh's 23 of 24 (0 of
     * 14), the eighth's 18 of 20 (0 of 21), the ninth's 26 of 28 (3 of 14), the tenth's 31 of 32 (1 of 22); tuned on,
     * the sixth's are 16 of 17, the seventh's 24 of 24 and the eighth's 20 of 20.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            sixth-set-sentences.tsv   | 169 |  9 | 17 | 19 | 16 | 1
            seventh-set-sentences.tsv | 194 | 10 | 24 | 14 | 24 | 0
            eighth-set-sentences.tsv  | 144 | 10 | 20 | 21 | 20 | 0
            ninth-set-sentences.tsv   | 149 | 12 | 28 | 14 | 26 | 3
            tenth-set-sentences.tsv   | 209 | 11 | 32 | 22 | 31 | 1
            """)
    void paragraphsThatHoldARuleAreSoftTierAndTheOthersLore(String file, int sentences, int documents,
                                                             int withRule, int withoutRule, int softAtLeast,
                                                             int falselySoftAtMost) throws Exception {
        Map<String, List<Labelled>> paragraphs = new TreeMap<>();
        for (Labelled l : documentSet(file, sentences, documents)) {
            if (l.block().startsWith("p")) {
                paragraphs.computeIfAbsent(l.source() + " " + l.block(), k -> new ArrayList<>()).add(l);
            }
        }
        DeonticLexer lexer = new DeonticLexer();
        int holding = 0;
        int holdingSoft = 0;
        int others = 0;
        int othersSoft = 0;
        for (List<Labelled> paragraph : paragraphs.values()) {
            boolean found = paragraph.stream().anyMatch(l -> !rulesOf(lexer, l).isEmpty());
            boolean soft = TierAssignment.tier(NodeKind.PARAGRAPH, found, false) == TierAssignment.SOFT;
            if (paragraph.stream().anyMatch(l -> !l.label().equals("N"))) {
                holding++;
                holdingSoft += soft ? 1 : 0;
            } else {
                others++;
                othersSoft += soft ? 1 : 0;
            }
        }
        System.out.printf("%s paragraphs: %d of %d holding a rule are soft tier; %d of %d holding none%n",
                file, holdingSoft, holding, othersSoft, others);
        assertThat(holding).isEqualTo(withRule);
        assertThat(others).isEqualTo(withoutRule);
        assertThat(holdingSoft).isGreaterThanOrEqualTo(softAtLeast);
        assertThat(othersSoft).isLessThanOrEqualTo(falselySoftAtMost);
    }

    /** A frozen set of {@code sentences} sentences from {@code documents} documents. */
    private static List<Labelled> documentSet(String file, int sentences, int documents) throws Exception {
        List<Labelled> set = load("/deontic/" + file);
        assertThat(set).hasSize(sentences);
        assertThat(set.stream().map(Labelled::source).distinct()).hasSize(documents);
        return set;
    }

    private static void assertAtLeast(Score s, double precision, double recall, double modalityAccuracy) {
        assertThat(s.precision()).as("precision").isGreaterThanOrEqualTo(precision);
        assertThat(s.recall()).as("recall").isGreaterThanOrEqualTo(recall);
        assertThat(s.modalityAccuracy()).as("modality accuracy").isGreaterThanOrEqualTo(modalityAccuracy);
    }

    /**
     * A set: a header line names its columns (label, source, sentence, and optionally half, section and block), one
     * sentence per line; # comments.
     */
    static List<Labelled> load(String resource) throws Exception {
        List<Labelled> set = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(Objects.requireNonNull(
                LabelledSentencesTest.class.getResourceAsStream(resource)), StandardCharsets.UTF_8))) {
            String line;
            List<String> columns = null;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("#")) {
                    continue;
                }
                String[] parts = line.split("\t");
                if (columns == null) {
                    columns = List.of(parts);
                    continue;
                }
                set.add(new Labelled(parts[columns.indexOf("label")], column(columns, parts, "half"),
                        parts[columns.indexOf("source")], column(columns, parts, "section"),
                        column(columns, parts, "block"), parts[columns.indexOf("sentence")]));
            }
        }
        return set;
    }

    /** The rules the lexer finds in a labelled sentence, read under its heading path. */
    private static List<Rule> rulesOf(DeonticLexer lexer, Labelled l) {
        return lexer.rules(l.sentence(), SectionKind.of(headingPath(l.section())));
    }

    /** A section column's heading path: headings joined by " > ", empty for none. */
    static List<String> headingPath(String section) {
        return section.isEmpty() ? List.of() : List.of(section.split(" > "));
    }

    private static String column(List<String> columns, String[] parts, String name) {
        int i = columns.indexOf(name);
        return i < 0 ? "" : parts[i];
    }
}
