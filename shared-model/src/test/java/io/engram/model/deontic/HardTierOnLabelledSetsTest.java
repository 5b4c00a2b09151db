package io.engram.model.deontic;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.deontic.LabelledSentencesTest.Labelled;
import io.engram.model.partition.NodeKind;
import io.engram.model.partition.TierAssignment;
import io.engram.model.tokens.TokenEstimate;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What the hard tier holds on labelled sentences, under the seed's tiers (every list item hard) and under the tiers
 * by rule ({@link TierAssignment#tier}: a list item is hard when the lexer finds a rule and the rule reader agrees,
 * soft when the lexer alone finds one): the share of the hard tier's tokens that are labelled rules, and the share of
 * labelled rules that land in tier 1 or 2. Each sentence is read as the partitioner reads its block: a list item on its
 * own, a paragraph soft when the lexer finds a rule in any of its sentences, a blockquote soft. The ninth and tenth
 * sets were never tuned on (the reading was chosen on the development sets: docs/benchmarks.md, "What the hard tier
 * holds"); their per-document numbers print, their misses do not.
 */
class HardTierOnLabelledSetsTest {

    private static final DeonticLexer LEXER = new DeonticLexer();

    /** Hard-tier tokens, those of them in labelled rules, rules, and rules in tier 1 or 2. */
    record Tally(long hardTokens, long hardRuleTokens, int rules, int rulesKept) {
        Tally plus(Tally o) {
            return new Tally(hardTokens + o.hardTokens, hardRuleTokens + o.hardRuleTokens, rules + o.rules,
                    rulesKept + o.rulesKept);
        }

        double hardShareInRules() {
            return hardTokens == 0 ? 1 : hardRuleTokens / (double) hardTokens;
        }

        double ruleRecall() {
            return rulesKept / (double) rules;
        }

        String report() {
            return String.format("hard tokens %5d, in rules %.3f; rules in tier 1 or 2 %3d of %3d (%.3f)", hardTokens,
                    hardShareInRules(), rulesKept, rules, ruleRecall());
        }
    }

    /** The tally of each document of a set, in the set's order, with the seed's tiers or the tiers by rule. */
    static Map<String, Tally> byDocument(List<Labelled> set, boolean seedTiers) {
        Map<String, Boolean> paragraphRule = new HashMap<>();
        for (Labelled l : set) {
            if (l.block().startsWith("p")) {
                paragraphRule.merge(l.source() + " " + l.block(), !rules(l).isEmpty(), Boolean::logicalOr);
            }
        }
        Map<String, Tally> tallies = new LinkedHashMap<>();
        for (Labelled l : set) {
            boolean found = !rules(l).isEmpty();
            int tier;
            if (l.block().startsWith("p")) {
                tier = TierAssignment.tier(NodeKind.PARAGRAPH, paragraphRule.get(l.source() + " " + l.block()), false);
            } else if (l.block().equals("quote")) {
                tier = TierAssignment.tier(NodeKind.BLOCKQUOTE, found, false);
            } else if (seedTiers) {
                tier = TierAssignment.seedTier(NodeKind.LIST_ITEM, found);
            } else {
                boolean confirmed = found && ShippedRuleReader.READER.confirms(l.sentence(),
                        LabelledSentencesTest.headingPath(l.section()));
                tier = TierAssignment.tier(NodeKind.LIST_ITEM, found, confirmed);
            }
            boolean rule = !l.label().equals("N");
            long tokens = TokenEstimate.INSTANCE.count(l.sentence());
            boolean hard = tier == TierAssignment.HARD;
            tallies.merge(l.source(), new Tally(hard ? tokens : 0, hard && rule ? tokens : 0, rule ? 1 : 0,
                    rule && tier != TierAssignment.LORE ? 1 : 0), Tally::plus);
        }
        return tallies;
    }

    private static List<Rule> rules(Labelled l) {
        return LEXER.rules(l.sentence(), SectionKind.of(LabelledSentencesTest.headingPath(l.section())));
    }

    private static Tally total(Map<String, Tally> tallies) {
        return tallies.values().stream().reduce(new Tally(0, 0, 0, 0), Tally::plus);
    }

    /**
     * The judges, document by document. The lexer's sentence recall on them was 0.744 and 0.859: the tiers by rule
     * keep at least that share of the rules in tier 1 or 2; the seed's tiers put 0.560 and 0.331 of the hard tokens in
     * rules, the tiers by rule 1.000 and 0.889 (together 0.948).
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            ninth-set-sentences.tsv | 0.744 | 0.56 | 0.99
            tenth-set-sentences.tsv | 0.859 | 0.33 | 0.88
            """)
    void onTheJudgesTheHardTierHoldsRulesAndKeepsAtLeastTheLexersRecall(String file, double lexerRecall,
                                                                        double seedShare, double ruleShare) throws Exception {
        List<Labelled> set = LabelledSentencesTest.load("/deontic/" + file);
        Map<String, Tally> seed = byDocument(set, true);
        Map<String, Tally> byRule = byDocument(set, false);
        System.out.println(file + ", by document: seed tiers | tiers by rule");
        seed.forEach((doc, before) -> System.out.printf("  %-48s %s | %s%n", doc, before.report(), byRule.get(doc).report()));
        System.out.printf("  %-48s %s | %s%n", "all", total(seed).report(), total(byRule).report());
        assertThat(total(seed).hardShareInRules()).isBetween(seedShare, seedShare + 0.01);
        assertThat(total(byRule).hardShareInRules()).isGreaterThanOrEqualTo(ruleShare);
        assertThat(total(byRule).ruleRecall()).isGreaterThanOrEqualTo(lexerRecall);
    }

    @Test
    void onBothJudgesTogetherAtLeastNinetyPercentOfTheHardTiersTokensAreRules() throws Exception {
        Tally judges = total(byDocument(LabelledSentencesTest.load("/deontic/ninth-set-sentences.tsv"), false))
                .plus(total(byDocument(LabelledSentencesTest.load("/deontic/tenth-set-sentences.tsv"), false)));
        System.out.println("ninth and tenth sets, tiers by rule: " + judges.report());
        assertThat(judges.hardShareInRules()).isGreaterThanOrEqualTo(0.90);
    }

    /** The development sets, where the reading was chosen: printed with both tiers. */
    @Test
    void onTheDevelopmentSets() throws Exception {
        for (String file : List.of("labelled-sentences.tsv", "unseen-sentences.tsv", "held-out-sentences.tsv",
                "fourth-set-sentences.tsv", "fifth-set-sentences.tsv", "sixth-set-sentences.tsv",
                "seventh-set-sentences.tsv", "eighth-set-sentences.tsv")) {
            List<Labelled> set = LabelledSentencesTest.load("/deontic/" + file);
            Tally seed = total(byDocument(set, true));
            Tally byRule = total(byDocument(set, false));
            System.out.printf("%-26s seed: %s | by rule: %s%n", file, seed.report(), byRule.report());
            assertThat(byRule.hardShareInRules()).as(file).isGreaterThan(seed.hardShareInRules());
        }
    }
}
