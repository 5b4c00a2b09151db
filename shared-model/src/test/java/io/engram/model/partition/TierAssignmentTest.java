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
}
