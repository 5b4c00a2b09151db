package io.engram.model.partition;

import io.engram.model.deontic.SerialityConflict;
import java.util.ArrayList;
import java.util.List;

/**
 * A document cut into tiered leaf nodes, with its budget outcome.
 *
 * @param cacheKey  {@link DocumentCacheKey} of the raw bytes and the tokenizer
 * @param nodes     every leaf node in document order
 * @param conflicts actions both obligatory and forbidden in this document
 * @param budget    the α1/α2 bounds over τ
 * @param warnings  things worth knowing that did not stop the partition (empty document, odd front matter)
 */
public record PartitionedDocument(String cacheKey, List<DocumentNode> nodes, List<SerialityConflict> conflicts,
                                  TierBudget budget, List<String> warnings) {

    public PartitionedDocument {
        nodes = List.copyOf(nodes);
        conflicts = List.copyOf(conflicts);
        warnings = List.copyOf(warnings);
    }

    /**
     * The nodes as memory records hold them, in document order: a heading titles what follows it and says little
     * alone ("## Code Review"), so it is not a record of its own; each lore node under it starts with the
     * heading's line instead (the nearest heading above; its tokens added, the newline between them is none).
     * Rules keep their own text: their tiers were budgeted on it.
     */
    public List<DocumentNode> storedNodes() {
        List<DocumentNode> stored = new ArrayList<>();
        DocumentNode heading = null;
        for (DocumentNode node : nodes) {
            if (node.kind() == NodeKind.HEADING) {
                heading = node;
            } else if (heading != null && node.tier() == TierAssignment.LORE) {
                stored.add(new DocumentNode(node.index(), node.kind(), node.tier(), heading.text() + "\n" + node.text(),
                        heading.tokens() + node.tokens(), node.lineStart(), node.lineEnd(), node.rules()));
            } else {
                stored.add(node);
            }
        }
        return stored;
    }

    /** The nodes of one tier, in document order. */
    public List<DocumentNode> tier(int tier) {
        return nodes.stream().filter(n -> n.tier() == tier).toList();
    }
}
