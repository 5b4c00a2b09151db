package io.engram.model.partition;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The real agent documents of data/agents-md partitioned with the lexer alone (the default) and with the rule reader
 * on: which nodes change tier (printed, with the reason: the rules each reading found), and, with list items by rule,
 * the hard tokens of each document and the share of them in nodes that hold a rule. docs/benchmarks.md has the
 * numbers.
 */
class RuleReaderRealDocumentsTest {

    /** The seed's tiers, under which the six nodes were read by hand: only paragraphs move with the reader there. */
    private static final MarkdownPartitioner LEXER = new MarkdownPartitioner(PartitionConfig.defaults()
            .withListItemsByRule(false));
    private static final MarkdownPartitioner READER = new MarkdownPartitioner(PartitionConfig.defaults()
            .withListItemsByRule(false).withRuleReader(true));
    private static final MarkdownPartitioner LEXER_ITEMS =
            new MarkdownPartitioner(PartitionConfig.defaults().withListItemsByRule(true));
    private static final MarkdownPartitioner READER_ITEMS =
            new MarkdownPartitioner(PartitionConfig.defaults().withRuleReader(true).withListItemsByRule(true));

    @Test
    void nodesThatChangeTierWithTheRuleReader() throws Exception {
        int nodes = 0;
        int changed = 0;
        for (Path file : RealDocumentsTest.documents()) {
            byte[] raw = Files.readAllBytes(file);
            List<DocumentNode> before = LEXER.partition(raw).nodes();
            List<DocumentNode> after = READER.partition(raw).nodes();
            assertThat(after).hasSameSizeAs(before);
            for (int i = 0; i < before.size(); i++) {
                nodes++;
                DocumentNode b = before.get(i);
                DocumentNode a = after.get(i);
                if (a.tier() != b.tier()) {
                    changed++;
                    System.out.printf("%s node %d (%s) tier %d -> %d; lexer %s; with the reader %s: %s%n",
                            file.getFileName(), i, b.kind(), b.tier(), a.tier(), b.rules(), a.rules(),
                            b.text().replace('\n', ' '));
                }
            }
        }
        System.out.printf("rule reader on data/agents-md: %d of %d nodes change tier%n", changed, nodes);
        // measured: 355 nodes, 6 change, all paragraphs from lore to soft (docs/benchmarks.md says which and why)
        assertThat(nodes).isEqualTo(355);
        assertThat(changed).isEqualTo(6);
    }

    @Test
    void hardTokensAndTheShareThatAreRulesWithListItemsByRule() throws Exception {
        for (Path file : RealDocumentsTest.documents()) {
            byte[] raw = Files.readAllBytes(file);
            String name = file.getFileName().toString();
            System.out.printf("%s: hard tokens (share in nodes that hold a rule) — default %s; list items by rule: "
                            + "lexer %s, rule reader %s%n", name, hard(LEXER.partition(raw)),
                    hard(LEXER_ITEMS.partition(raw)), hard(READER_ITEMS.partition(raw)));
        }
    }

    private static String hard(PartitionedDocument document) {
        long tokens = 0;
        long ruled = 0;
        for (DocumentNode node : document.tier(TierAssignment.HARD)) {
            tokens += node.tokens();
            ruled += node.rules().isEmpty() ? 0 : node.tokens();
        }
        return String.format("%d (%.0f %%)", tokens, tokens == 0 ? 100.0 : 100.0 * ruled / tokens);
    }
}
