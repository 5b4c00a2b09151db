package io.engram.model.partition;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The hard tier of every real agent document the repository holds (data/agents-md and data/agents-corpus), under the
 * seed's tiers and under the tiers by rule (docs/contracts.md §A.2): its tokens, and the share of them in nodes where
 * the lexer finds any rule. docs/benchmarks.md, "What the hard tier holds", reports what this prints.
 */
class HardTierOnRealDocumentsTest {

    private static final Path AGENTS_MD = Path.of(java.util.Objects.requireNonNull(
            System.getProperty("engram.agent-documents"), "system property engram.agent-documents (set by the build)"));
    private static final MarkdownPartitioner SEED = new MarkdownPartitioner(PartitionConfig.defaults()
            .withListItemsByRule(false).withBudget(1_000_000, 0.4, 0.3)); // no demotion: the seed's whole hard tier
    private static final MarkdownPartitioner BY_RULE = new MarkdownPartitioner(PartitionConfig.defaults());

    static List<Path> documents() throws Exception {
        List<Path> documents = new ArrayList<>();
        for (Path folder : List.of(AGENTS_MD, AGENTS_MD.resolveSibling("agents-corpus"))) {
            try (Stream<Path> files = Files.list(folder)) {
                files.filter(p -> p.getFileName().toString().contains("__")).sorted().forEach(documents::add);
            }
        }
        return documents;
    }

    /** Σ tokens of the hard tier, and of those the ones in nodes where a rule was found. */
    private static long[] hard(PartitionedDocument doc) {
        long tokens = 0;
        long ruled = 0;
        for (DocumentNode n : doc.tier(TierAssignment.HARD)) {
            tokens += n.tokens();
            ruled += n.rules().isEmpty() ? 0 : n.tokens();
        }
        return new long[] {tokens, ruled};
    }

    @Test
    void theHardTierHoldsOnlyNodesWithARuleAndNoDocumentIsRefused() throws Exception {
        List<Path> documents = documents();
        assertThat(documents).hasSizeGreaterThanOrEqualTo(46);
        long seedTokens = 0;
        long seedRuled = 0;
        long ruleTokens = 0;
        int demoted = 0;
        for (Path file : documents) {
            byte[] raw = Files.readAllBytes(file);
            long[] seed = hard(SEED.partition(raw));
            PartitionedDocument byRule = BY_RULE.partition(raw);
            long[] after = hard(byRule);
            assertThat(after[1]).as(file.toString()).isEqualTo(after[0]); // every hard node holds a rule
            assertThat(after[0]).as(file.toString()).isLessThanOrEqualTo(byRule.budget().hardLimit());
            seedTokens += seed[0];
            seedRuled += seed[1];
            ruleTokens += after[0];
            demoted += byRule.budget().demotedHardNodes() > 0 ? 1 : 0;
            System.out.printf("%-90s seed hard %5d (%3.0f %% in nodes with a rule) -> by rule %5d, %s%n",
                    file.getFileName(), seed[0], seed[0] == 0 ? 100.0 : 100.0 * seed[1] / seed[0], after[0],
                    byRule.budget().verdict().label());
        }
        System.out.printf("%d documents: seed hard %d tokens, %.3f in nodes with a rule; by rule %d; %d demoted at tau %d%n",
                documents.size(), seedTokens, seedRuled / (double) seedTokens, ruleTokens, demoted,
                PartitionConfig.DEFAULT_TAU);
        assertThat(ruleTokens).isLessThan(seedRuled);
    }
}
