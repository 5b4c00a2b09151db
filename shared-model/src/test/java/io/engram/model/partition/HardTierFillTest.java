package io.engram.model.partition;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.deontic.Modality;
import io.engram.model.deontic.Rule;
import io.engram.model.deontic.Trigger;
import java.util.List;
import org.junit.jupiter.api.Test;

class HardTierFillTest {

    private static DocumentNode hard(int index, int tokens, Modality... modalities) {
        List<Rule> rules = java.util.Arrays.stream(modalities).map(m -> new Rule(m, "act " + index, Trigger.IMPERATIVE))
                .toList();
        return new DocumentNode(index, NodeKind.LIST_ITEM, TierAssignment.HARD, "- rule " + index, tokens, index + 1,
                index + 1, rules);
    }

    @Test
    void withinTheLimitNothingMoves() {
        List<DocumentNode> nodes = List.of(hard(0, 200, Modality.PERMITTED), hard(1, 200, Modality.OBLIGATORY));
        assertThat(HardTierFill.fill(nodes, 400)).isSameAs(nodes);
    }

    @Test
    void theStrongestStayHardWhileTheyFitAndTheOthersBecomeSoftInPlace() {
        // limit 400: the prohibition (150) first, then the obligations in document order (100 fits, 200 would make
        // 450), then the permission (50) still fits what is left
        List<DocumentNode> nodes = List.of(hard(0, 100, Modality.OBLIGATORY), hard(1, 50, Modality.PERMITTED),
                hard(2, 200, Modality.OBLIGATORY), hard(3, 150, Modality.FORBIDDEN),
                new DocumentNode(4, NodeKind.PARAGRAPH, TierAssignment.LORE, "lore", 999, 5, 5, List.of()));
        List<DocumentNode> filled = HardTierFill.fill(nodes, 400);
        assertThat(filled).extracting(DocumentNode::tier).containsExactly(TierAssignment.HARD, TierAssignment.HARD,
                TierAssignment.SOFT, TierAssignment.HARD, TierAssignment.LORE);
        assertThat(filled.stream().filter(n -> n.tier() == TierAssignment.HARD).mapToInt(DocumentNode::tokens).sum())
                .isEqualTo(300);
        assertThat(filled).extracting(DocumentNode::text).isEqualTo(nodes.stream().map(DocumentNode::text).toList());
    }
}
