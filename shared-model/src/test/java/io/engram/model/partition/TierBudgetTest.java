package io.engram.model.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TierBudgetTest {

    private static DocumentNode node(int tier, int tokens) {
        NodeKind kind = tier == 1 ? NodeKind.LIST_ITEM : tier == 2 ? NodeKind.BLOCKQUOTE : NodeKind.PARAGRAPH;
        return new DocumentNode(0, kind, tier, "x", tokens, 1, 1, List.of());
    }

    @Test
    void hardTokensAtTheLimitAreAcceptedAndOneMoreMustBeDemotedFirst() {
        // tau 1000, alpha1 0.4 -> limit 400
        TierBudget at = TierBudget.evaluate(List.of(node(1, 250), node(1, 150)), 1000, 0.4, 0.3);
        assertThat(at.hardLimit()).isEqualTo(400);
        assertThat(at.hardTokens()).isEqualTo(400);
        assertThat(at.verdict()).isEqualTo(TierBudget.Verdict.ACCEPTED);

        assertThatThrownBy(() -> TierBudget.evaluate(List.of(node(1, 250), node(1, 151)), 1000, 0.4, 0.3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("401").hasMessageContaining("400");

        TierBudget under = TierBudget.evaluate(List.of(node(1, 399)), 1000, 0.4, 0.3);
        assertThat(under.verdict()).isEqualTo(TierBudget.Verdict.ACCEPTED);
    }

    @Test
    void softRulesKeepTheLongestPrefixThatFits() {
        // tau 1000, alpha2 0.3 -> limit 300
        List<DocumentNode> nodes = List.of(node(2, 100), node(0, 5000), node(2, 200), node(2, 1), node(2, 50));
        TierBudget b = TierBudget.evaluate(nodes, 1000, 0.4, 0.3);
        assertThat(b.softLimit()).isEqualTo(300);
        assertThat(b.softTokensKept()).isEqualTo(300);
        assertThat(b.softNodesKept()).isEqualTo(2);
        // a prefix: the 1-token node after the first cut is cut as well, though it would fit
        assertThat(b.truncatedSoftNodes()).isEqualTo(2);
        assertThat(b.softTokens()).isEqualTo(351);
        assertThat(b.verdict()).isEqualTo(TierBudget.Verdict.SOFT_TRUNCATED);
    }

    @Test
    void softRulesExactlyAtTheLimitAreAllKept() {
        TierBudget b = TierBudget.evaluate(List.of(node(2, 100), node(2, 200)), 1000, 0.4, 0.3);
        assertThat(b.truncatedSoftNodes()).isZero();
        assertThat(b.verdict()).isEqualTo(TierBudget.Verdict.ACCEPTED);
        TierBudget oneOver = TierBudget.evaluate(List.of(node(2, 100), node(2, 201)), 1000, 0.4, 0.3);
        assertThat(oneOver.truncatedSoftNodes()).isEqualTo(1);
        assertThat(oneOver.softNodesKept()).isEqualTo(1);
    }

    @Test
    void limitsAreWholeTokensRobustToBinaryFractions() {
        assertThat(TierBudget.limit(0.4, 1000)).isEqualTo(400);
        assertThat(TierBudget.limit(0.3, 1000)).isEqualTo(300);
        assertThat(TierBudget.limit(0.3, 10)).isEqualTo(3);
        assertThat(TierBudget.limit(0.4, 8192)).isEqualTo(3276);
        assertThat(TierBudget.limit(0.3, 8192)).isEqualTo(2457);
        assertThat(TierBudget.limit(0.4, 16384)).isEqualTo(6553);
    }

    @Test
    void demotionWinsOverSoftTruncationAndTheExplanationHasTheNumbers() {
        List<DocumentNode> nodes = new ArrayList<>(List.of(node(1, 400), node(2, 400)));
        TierBudget b = TierBudget.evaluate(nodes, 1000, 0.4, 0.3, 3);
        assertThat(b.verdict()).isEqualTo(TierBudget.Verdict.HARD_DEMOTED);
        assertThat(b.demotedHardNodes()).isEqualTo(3);
        assertThat(b.truncatedSoftNodes()).isEqualTo(1);
        assertThat(b.explain()).contains("3 hard rules moved to the soft tier", "400", "1000");
    }

    @Test
    void invalidParametersAreRefused() {
        assertThatThrownBy(() -> TierBudget.evaluate(List.of(), 0, 0.4, 0.3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TierBudget.evaluate(List.of(), 100, 0, 0.3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TierBudget.evaluate(List.of(), 100, 0.4, 1.5)).isInstanceOf(IllegalArgumentException.class);
    }
}
