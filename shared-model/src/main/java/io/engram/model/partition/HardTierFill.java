package io.engram.model.partition;

import io.engram.model.deontic.RuleStrength;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The hard tier within its load limit ⌊α1·τ⌋ (docs/contracts.md §A.5): when a document's hard nodes take more, the
 * strongest ({@link RuleStrength}: prohibitions, then obligations, then permissions; document order within each)
 * stay hard while they fit, and the others become soft rules. The seed rejected such a version whole, which left
 * the agent with no rules at all (openclaw's own AGENTS.md: 10,459 hard tokens over a limit of 6,553).
 */
final class HardTierFill {

    private HardTierFill() {
    }

    /** The nodes with the hard ones that do not fit {@code limit} moved to the soft tier; the same list when all fit. */
    static List<DocumentNode> fill(List<DocumentNode> nodes, long limit) {
        long hard = nodes.stream().filter(n -> n.tier() == TierAssignment.HARD).mapToLong(DocumentNode::tokens).sum();
        if (hard <= limit) {
            return nodes;
        }
        List<DocumentNode> byStrength = nodes.stream().filter(n -> n.tier() == TierAssignment.HARD)
                .sorted(Comparator.comparingInt((DocumentNode n) -> RuleStrength.rank(n.rules()))
                        .thenComparingInt(DocumentNode::index))
                .toList();
        boolean[] keep = new boolean[nodes.size()];
        long kept = 0;
        for (DocumentNode node : byStrength) {
            if (kept + node.tokens() <= limit) {
                keep[node.index()] = true;
                kept += node.tokens();
            }
        }
        List<DocumentNode> filled = new ArrayList<>(nodes.size());
        for (DocumentNode n : nodes) {
            filled.add(n.tier() != TierAssignment.HARD || keep[n.index()] ? n : new DocumentNode(n.index(), n.kind(),
                    TierAssignment.SOFT, n.text(), n.tokens(), n.lineStart(), n.lineEnd(), n.rules()));
        }
        return filled;
    }
}
