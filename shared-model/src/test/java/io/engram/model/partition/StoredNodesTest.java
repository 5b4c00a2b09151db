package io.engram.model.partition;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Headings title the lore under them instead of standing alone as records. */
class StoredNodesTest {

    private final MarkdownPartitioner partitioner = new MarkdownPartitioner(PartitionConfig.defaults());

    @Test
    void eachLoreNodeCarriesTheNearestHeadingAboveItAndNoHeadingIsStoredAlone() throws Exception {
        PartitionedDocument doc = partitioner.partition("""
                # Guide

                ## Code Review

                Reviewers read the diff twice.

                - Never push to main.

                ### Backend gotcha

                The async driver drops shared connections.

                The pool holds one connection per task.

                ## Empty section
                """);

        List<DocumentNode> stored = doc.storedNodes();

        assertThat(stored).noneMatch(n -> n.kind() == NodeKind.HEADING);
        assertThat(stored).extracting(DocumentNode::text).containsExactly(
                "## Code Review\nReviewers read the diff twice.",
                "- Never push to main.",
                "### Backend gotcha\nThe async driver drops shared connections.",
                "### Backend gotcha\nThe pool holds one connection per task.");
        DocumentNode titled = stored.get(0);
        DocumentNode original = doc.nodes().get(titled.index());
        DocumentNode heading = doc.nodes().get(titled.index() - 1);
        assertThat(titled.tokens()).isEqualTo(heading.tokens() + original.tokens());
        assertThat(titled.lineStart()).isEqualTo(original.lineStart());
        // the rule keeps its own text: its tier was budgeted on it
        assertThat(stored.get(1).tier()).isEqualTo(TierAssignment.HARD);
        assertThat(stored.get(1)).isEqualTo(doc.nodes().get(stored.get(1).index()));
    }
}
