package io.engram.model.partition;

import io.engram.model.deontic.SerialityConflict;
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

    /** The nodes of one tier, in document order. */
    public List<DocumentNode> tier(int tier) {
        return nodes.stream().filter(n -> n.tier() == tier).toList();
    }
}
