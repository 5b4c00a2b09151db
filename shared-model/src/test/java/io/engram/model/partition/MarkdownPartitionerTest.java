package io.engram.model.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.engram.model.deontic.Modality;
import io.engram.model.partition.InvalidDocumentException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class MarkdownPartitionerTest {

    private final MarkdownPartitioner partitioner = new MarkdownPartitioner(PartitionConfig.defaults());

    private PartitionedDocument partition(String markdown) throws InvalidDocumentException {
        return partitioner.partition(markdown);
    }

    private static List<String> kindsAndTiers(PartitionedDocument doc) {
        return doc.nodes().stream().map(n -> n.kind().label() + ":" + n.tier()).toList();
    }

    @Test
    void eachNodeKindGetsItsTier() throws Exception {
        PartitionedDocument doc = partition("""
                ---
                name: reviewer
                ---
                # Title

                A plain paragraph about the project.

                You must answer in English.

                - Never log secrets.
                - second item

                > quoted guidance

                ```
                code
                ```

                <div>html</div>

                | a | b |
                |---|---|
                | 1 | 2 |
                """);
        assertThat(kindsAndTiers(doc)).containsExactly(
                "front_matter:0", "heading:0", "paragraph:0", "paragraph:2", "list_item:1", "list_item:0",
                "blockquote:2", "code_block:0", "html_block:0", "table:0");
        assertThat(doc.nodes()).extracting(DocumentNode::index).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        DocumentNode rule = doc.nodes().get(3);
        assertThat(rule.rules()).hasSize(1);
        assertThat(rule.rules().get(0).modality()).isEqualTo(Modality.OBLIGATORY);
        assertThat(rule.rules().get(0).action()).isEqualTo("answer in English");
    }

    @Test
    void nestedListsFoldIntoTheirParentItem() throws Exception {
        PartitionedDocument doc = partition("""
                - parent one
                  - child a
                  - child b
                    - grandchild
                - parent two
                """);
        assertThat(doc.nodes()).hasSize(2);
        DocumentNode first = doc.nodes().get(0);
        assertThat(first.kind()).isEqualTo(NodeKind.LIST_ITEM);
        assertThat(first.text()).isEqualTo("- parent one\n  - child a\n  - child b\n    - grandchild");
        assertThat(first.lineStart()).isEqualTo(1);
        assertThat(first.lineEnd()).isEqualTo(4);
        assertThat(doc.nodes().get(1).text()).isEqualTo("- parent two");
        assertThat(doc.nodes().get(1).lineStart()).isEqualTo(5);
    }

    @Test
    void orderedListItemsAreNodesToo() throws Exception {
        assertThat(kindsAndTiers(partition("1. one\n2. two\n3. three\n")))
                .containsExactly("list_item:0", "list_item:0", "list_item:0"); // no rule in them: lore
    }

    @Test
    void frontMatterOnlyAtTheStartOfTheFile() throws Exception {
        PartitionedDocument late = partition("Intro\n\n---\nkey: value\n---\n");
        assertThat(late.nodes()).noneMatch(n -> n.kind() == NodeKind.FRONT_MATTER);

        PartitionedDocument dots = partition("---\nkey: value\n...\nBody text.\n");
        assertThat(kindsAndTiers(dots)).containsExactly("front_matter:0", "paragraph:0");
        assertThat(dots.nodes().get(0).text()).isEqualTo("---\nkey: value\n...");
    }

    @Test
    void unterminatedFrontMatterIsReadAsMarkdownWithAWarning() throws Exception {
        PartitionedDocument doc = partition("---\ntitle: x\n\nYou must reply briefly.\n");
        assertThat(doc.nodes()).noneMatch(n -> n.kind() == NodeKind.FRONT_MATTER);
        assertThat(doc.warnings()).anyMatch(w -> w.contains("not closed"));
        assertThat(doc.nodes()).anyMatch(n -> n.tier() == TierAssignment.SOFT);
    }

    @Test
    void invalidYamlIsKeptVerbatimWithAWarning() throws Exception {
        PartitionedDocument doc = partition("---\n: : [unbalanced\n---\nBody.\n");
        assertThat(doc.nodes().get(0).kind()).isEqualTo(NodeKind.FRONT_MATTER);
        assertThat(doc.nodes().get(0).text()).isEqualTo("---\n: : [unbalanced\n---");
        assertThat(doc.warnings()).anyMatch(w -> w.contains("no YAML key"));
    }

    @Test
    void onlyFrontMatterWithoutARuleIsOneLoreNodeAndTheSeedsTiersMakeItHard() throws Exception {
        PartitionedDocument doc = partition("---\nname: x\nrole: y\n---\n");
        assertThat(kindsAndTiers(doc)).containsExactly("front_matter:0");
        assertThat(doc.budget().hardTokens()).isZero();
        PartitionedDocument seed = new MarkdownPartitioner(PartitionConfig.defaults().withListItemsByRule(false))
                .partition("---\nname: x\nrole: y\n---\n");
        assertThat(kindsAndTiers(seed)).containsExactly("front_matter:1");
        assertThat(seed.budget().hardTokens()).isEqualTo(seed.nodes().get(0).tokens());
    }

    @Test
    void emptyDocumentIsAnEmptyAcceptedResult() throws Exception {
        for (String empty : new String[] {"", "   \n\n", "\uFEFF"}) {
            PartitionedDocument doc = partition(empty);
            assertThat(doc.nodes()).isEmpty();
            assertThat(doc.budget().verdict()).isEqualTo(TierBudget.Verdict.ACCEPTED);
            assertThat(doc.warnings()).contains("empty document");
        }
    }

    @Test
    void binaryGarbageAndInvalidUtf8AreRefusedWithAReason() {
        byte[] notUtf8 = {'#', ' ', 'x', '\n', (byte) 0xC3, (byte) 0x28, 'a'};
        assertThatThrownBy(() -> partitioner.partition(notUtf8))
                .isInstanceOf(InvalidDocumentException.class)
                .hasMessageContaining("offset 4")
                .extracting(e -> ((InvalidDocumentException) e).reason()).isEqualTo(Reason.NOT_UTF8);
        byte[] withNul = "PK\u0003\u0004\u0000\u0000binary".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> partitioner.partition(withNul))
                .extracting(e -> ((InvalidDocumentException) e).reason()).isEqualTo(Reason.BINARY_CONTENT);
        java.util.Random random = new java.util.Random(7);
        byte[] garbage = new byte[4096];
        random.nextBytes(garbage);
        assertThatThrownBy(() -> partitioner.partition(garbage)).isInstanceOf(InvalidDocumentException.class);
    }

    @Test
    void oversizedDocumentsAreRefusedAndLargeOnesPartitioned() throws Exception {
        StringBuilder big = new StringBuilder();
        while (big.length() < 5_000_000) {
            big.append("## Section\n\nSome lore about the project that goes on for a while.\n\n- Always test.\n\n");
        }
        PartitionedDocument doc = partition(big.toString());
        assertThat(doc.nodes().size()).isGreaterThan(150_000);
        assertThat(doc.budget().verdict()).isEqualTo(TierBudget.Verdict.HARD_DEMOTED);
        assertThat(doc.budget().hardTokens()).isPositive().isLessThanOrEqualTo(doc.budget().hardLimit());

        MarkdownPartitioner small = new MarkdownPartitioner(new PartitionConfig(8192, 0.4, 0.3, 1024, 64,
                io.engram.model.tokens.TokenEstimate.INSTANCE, false, false));
        assertThatThrownBy(() -> small.partition("x".repeat(1025)))
                .extracting(e -> ((InvalidDocumentException) e).reason()).isEqualTo(Reason.TOO_LARGE);
    }

    @Test
    void tenThousandDeepNestingIsRefusedQuicklyNotAStackOverflowOrHang() {
        StringBuilder lists = new StringBuilder();
        for (int i = 0; i < 10_000; i++) {
            lists.append("  ".repeat(i)).append("- level ").append(i).append('\n');
        }
        // ~100 MB of indentation: over the default size bound, and over the nesting bound when size allows
        assertThatThrownBy(() -> partition(lists.toString()))
                .extracting(e -> ((InvalidDocumentException) e).reason()).isEqualTo(Reason.TOO_LARGE);
        MarkdownPartitioner roomy = new MarkdownPartitioner(new PartitionConfig(8192, 0.4, 0.3, Integer.MAX_VALUE, 64,
                io.engram.model.tokens.TokenEstimate.INSTANCE, false, false));
        assertThatThrownBy(() -> roomy.partition(lists.toString()))
                .hasMessageContaining("at line 65")
                .extracting(e -> ((InvalidDocumentException) e).reason()).isEqualTo(Reason.NESTING_TOO_DEEP);
        assertThatThrownBy(() -> partition(">".repeat(10_000) + " deep quote\n"))
                .hasMessageContaining("line 1")
                .extracting(e -> ((InvalidDocumentException) e).reason()).isEqualTo(Reason.NESTING_TOO_DEEP);
    }

    @Test
    void nestingWithinTheBoundIsPartitioned() throws Exception {
        StringBuilder lists = new StringBuilder();
        for (int i = 0; i < 30; i++) {
            lists.append("  ".repeat(i)).append("- level ").append(i).append('\n');
        }
        PartitionedDocument doc = partition(lists.toString());
        assertThat(doc.nodes()).hasSize(1);
        assertThat(doc.nodes().get(0).lineEnd()).isEqualTo(30);
        // deep indentation inside a fenced code block is content, not nesting
        String fenced = "```\n" + " ".repeat(400) + "x\n```\n";
        assertThat(partition(fenced).nodes()).extracting(DocumentNode::kind).containsExactly(NodeKind.CODE_BLOCK);
    }

    @Test
    void zeroWidthAndRightToLeftCharactersAreKeptAndHandled() throws Exception {
        PartitionedDocument doc = partition("\u202Eشيء\u202C You m\u200Bust reply in Arabic.\n\nمرحبا بكم في المشروع.\n");
        assertThat(doc.nodes()).hasSize(2);
        assertThat(doc.nodes().get(0).tier()).isEqualTo(TierAssignment.SOFT);
        assertThat(doc.nodes().get(0).text()).contains("\u202E", "\u200B");
        assertThat(doc.nodes().get(1).tier()).isEqualTo(TierAssignment.LORE);
        assertThat(doc.nodes().get(1).tokens()).isEqualTo((int) Math.ceil("مرحبا بكم في المشروع.".length() / 2.5));
    }

    @Test
    void conflictsAreReportedNotSilentlyKept() throws Exception {
        PartitionedDocument doc = partition("- Always use tabs.\n\nNever use tabs in YAML.\n\nAvoid using tabs.\n");
        assertThat(doc.conflicts()).hasSize(1);
        assertThat(doc.conflicts().get(0).obligatoryNode()).isEqualTo(0);
        assertThat(doc.conflicts().get(0).forbiddenNode()).isEqualTo(2);
    }

    @Test
    void cacheKeyHashesTheRawBytesAndTheTokenizer() throws Exception {
        PartitionedDocument doc = partition("# Rules\n- Always answer in JSON.\n");
        assertThat(doc.cacheKey()).isEqualTo(DocumentCacheKey.of("# Rules\n- Always answer in JSON.\n"
                .getBytes(java.nio.charset.StandardCharsets.UTF_8), "estimate-chi-v1+rule-tiers"));
        assertThat(doc.cacheKey()).isEqualTo("3ce9ee3535322a4d1047baeabca4742abaa35c9057465278bb9dea905387d3b9");
    }
}
