package io.engram.model.partition;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Property: over generated documents, the three tiers partition the node sequence exactly. */
class PartitionCompletenessTest {

    private static final String[] BLOCKS = {
        "# Heading %d\n", "Plain lore paragraph number %d about the system.\n",
        "You must keep rule %d in mind.\n", "Never break invariant %d.\n", "- item %d\n  - nested %d\n",
        "1. ordered %d\n", "> quoted guidance %d\n", "```\ncode %d\n```\n", "<div>html %d</div>\n",
        "| h%d | x |\n|---|---|\n| 1 | 2 |\n", "---\n", "* star item %d\n* another\n", "Text with **emphasis** %d.\n",
        "    indented code %d\n", "[ref%d]: https://example.org\n", "你必须遵守规则%d。\n", "\u200B\u202E odd %d\n"};

    @Test
    void tiersPartitionTheNodesOfFiveHundredGeneratedDocuments() throws Exception {
        Random random = new Random(20261129L);
        MarkdownPartitioner partitioner = new MarkdownPartitioner(PartitionConfig.defaults());
        for (int doc = 0; doc < 500; doc++) {
            StringBuilder markdown = new StringBuilder();
            if (random.nextInt(4) == 0) {
                markdown.append("---\nname: doc").append(doc).append("\n---\n");
            }
            int blocks = random.nextInt(25);
            for (int b = 0; b < blocks; b++) {
                String block = BLOCKS[random.nextInt(BLOCKS.length)];
                markdown.append(block.replace("%d", Integer.toString(b))).append(random.nextBoolean() ? "\n" : "");
            }
            String source = markdown.toString();
            PartitionedDocument result = partitioner.partition(source);
            List<DocumentNode> nodes = result.nodes();

            int hard = result.tier(1).size();
            int soft = result.tier(2).size();
            int lore = result.tier(0).size();
            assertThat(hard + soft + lore).as(source).isEqualTo(nodes.size());
            int previousLine = 0;
            for (int i = 0; i < nodes.size(); i++) {
                DocumentNode node = nodes.get(i);
                assertThat(node.index()).isEqualTo(i);
                boolean rule = !node.rules().isEmpty();
                if (TierAssignment.needsConfirmation(node.kind()) && rule) { // hard if the reader confirmed it, else soft
                    assertThat(node.tier()).isIn(TierAssignment.HARD, TierAssignment.SOFT);
                } else {
                    assertThat(node.tier()).isEqualTo(TierAssignment.tier(node.kind(), rule, false));
                }
                assertThat(node.lineStart()).isGreaterThan(previousLine).isLessThanOrEqualTo(node.lineEnd());
                assertThat(source).contains(node.text());
                previousLine = node.lineEnd();
            }
            long hardTokens = result.tier(1).stream().mapToLong(DocumentNode::tokens).sum();
            assertThat(result.budget().hardTokens()).isEqualTo(hardTokens);
        }
    }
}
