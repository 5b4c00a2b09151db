package io.engram.model.partition;

import io.engram.model.deontic.Rule;
import java.util.List;

/**
 * One leaf node of a partitioned document.
 *
 * @param index     position in document order, from 0
 * @param kind      the Markdown construct
 * @param tier      0 lore, 1 hard rule, 2 soft rule ({@link TierAssignment})
 * @param text      the node's Markdown source, verbatim
 * @param tokens    token count of {@code text}
 * @param lineStart first source line, from 1
 * @param lineEnd   last source line, inclusive
 * @param rules     rules the deontic lexer found in the node
 */
public record DocumentNode(int index, NodeKind kind, int tier, String text, int tokens, int lineStart, int lineEnd,
                           List<Rule> rules) {

    public DocumentNode {
        rules = List.copyOf(rules);
    }
}
