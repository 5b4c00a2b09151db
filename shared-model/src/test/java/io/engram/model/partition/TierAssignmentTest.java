package io.engram.model.partition;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TierAssignmentTest {

    @Test
    void aListItemOrFrontMatterIsHardOnlyWhenItStatesARuleTheReaderConfirms() {
        for (NodeKind kind : new NodeKind[] {NodeKind.LIST_ITEM, NodeKind.FRONT_MATTER}) {
            assertThat(TierAssignment.tier(kind, true, true)).isEqualTo(TierAssignment.HARD);
            assertThat(TierAssignment.tier(kind, true, false)).isEqualTo(TierAssignment.SOFT);
            assertThat(TierAssignment.tier(kind, false, false)).isEqualTo(TierAssignment.LORE);
        }
        assertThat(TierAssignment.tier(NodeKind.BLOCKQUOTE, false, false)).isEqualTo(TierAssignment.SOFT);
        assertThat(TierAssignment.tier(NodeKind.PARAGRAPH, true, false)).isEqualTo(TierAssignment.SOFT);
        assertThat(TierAssignment.tier(NodeKind.PARAGRAPH, false, false)).isEqualTo(TierAssignment.LORE);
        for (NodeKind kind : new NodeKind[] {NodeKind.HEADING, NodeKind.CODE_BLOCK, NodeKind.HTML_BLOCK, NodeKind.TABLE}) {
            assertThat(TierAssignment.tier(kind, true, true)).isZero();
            assertThat(TierAssignment.tier(kind, false, false)).isZero();
        }
    }

    @Test
    void theSeedsRuleMakesEveryListItemAndTheFrontMatterHardAndAgreesElsewhere() {
        assertThat(TierAssignment.seedTier(NodeKind.LIST_ITEM, false)).isEqualTo(TierAssignment.HARD);
        assertThat(TierAssignment.seedTier(NodeKind.FRONT_MATTER, false)).isEqualTo(TierAssignment.HARD);
        for (NodeKind kind : NodeKind.values()) {
            if (kind != NodeKind.LIST_ITEM && kind != NodeKind.FRONT_MATTER) {
                for (boolean rule : new boolean[] {true, false}) {
                    assertThat(TierAssignment.seedTier(kind, rule)).isEqualTo(TierAssignment.tier(kind, rule, false));
                }
            }
        }
    }
}
