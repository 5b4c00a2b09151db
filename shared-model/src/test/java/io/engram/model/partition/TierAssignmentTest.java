package io.engram.model.partition;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TierAssignmentTest {

    @Test
    void iotaMapsEveryKindToExactlyOneTier() {
        assertThat(TierAssignment.tier(NodeKind.LIST_ITEM, false)).isEqualTo(1);
        assertThat(TierAssignment.tier(NodeKind.LIST_ITEM, true)).isEqualTo(1);
        assertThat(TierAssignment.tier(NodeKind.FRONT_MATTER, false)).isEqualTo(1);
        assertThat(TierAssignment.tier(NodeKind.BLOCKQUOTE, false)).isEqualTo(2);
        assertThat(TierAssignment.tier(NodeKind.PARAGRAPH, true)).isEqualTo(2);
        assertThat(TierAssignment.tier(NodeKind.PARAGRAPH, false)).isEqualTo(0);
        for (NodeKind kind : new NodeKind[] {NodeKind.HEADING, NodeKind.CODE_BLOCK, NodeKind.HTML_BLOCK, NodeKind.TABLE}) {
            assertThat(TierAssignment.tier(kind, true)).isZero();
            assertThat(TierAssignment.tier(kind, false)).isZero();
        }
    }

    @Test
    void withListItemsByRuleAListItemWithoutARuleIsLoreAndNothingElseMoves() {
        assertThat(TierAssignment.tier(NodeKind.LIST_ITEM, true, true)).isEqualTo(TierAssignment.HARD);
        assertThat(TierAssignment.tier(NodeKind.LIST_ITEM, false, true)).isEqualTo(TierAssignment.LORE);
        for (NodeKind kind : NodeKind.values()) {
            if (kind != NodeKind.LIST_ITEM) {
                for (boolean rule : new boolean[] {true, false}) {
                    assertThat(TierAssignment.tier(kind, rule, true)).isEqualTo(TierAssignment.tier(kind, rule));
                }
            }
        }
    }
}
