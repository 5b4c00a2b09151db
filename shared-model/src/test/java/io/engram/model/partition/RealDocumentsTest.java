package io.engram.model.partition;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.deontic.Rule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The real agent documents of data/agents-md (their sources and licences in data/agents-md/NOTICE). */
class RealDocumentsTest {

    private static final Path DOCS = Path.of(java.util.Objects.requireNonNull(
            System.getProperty("engram.agent-documents"), "system property engram.agent-documents (set by the build)"));
    private final MarkdownPartitioner partitioner = new MarkdownPartitioner(PartitionConfig.defaults());
    /** The seed's tiers, under which the nodes below were checked by hand: what they check is the lexer's reading. */
    private final MarkdownPartitioner seedTiers = new MarkdownPartitioner(PartitionConfig.defaults().withListItemsByRule(false));

    /** One document of {@link #DOCS}, partitioned with the seed's tiers. */
    private PartitionedDocument partitioned(String file) throws Exception {
        return seedTiers.partition(Files.readAllBytes(DOCS.resolve(file)));
    }

    static List<Path> documents() throws Exception {
        try (Stream<Path> files = Files.list(DOCS)) {
            return files.filter(p -> p.getFileName().toString().contains("__")).sorted().toList();
        }
    }

    @Test
    void everyDocumentPartitionsAndNoListItemWithoutARuleIsAHardRule() throws Exception {
        List<Path> documents = documents();
        assertThat(documents).hasSizeGreaterThanOrEqualTo(8);
        for (Path file : documents) {
            byte[] raw = Files.readAllBytes(file);
            PartitionedDocument doc = partitioner.partition(raw);
            String source = new String(raw, java.nio.charset.StandardCharsets.UTF_8);
            assertThat(doc.nodes()).as(file.toString()).isNotEmpty();
            for (DocumentNode node : doc.nodes()) {
                if (node.kind() == NodeKind.LIST_ITEM && node.rules().isEmpty()) {
                    assertThat(node.tier()).as("%s node %d", file.getFileName(), node.index()).isZero();
                }
                assertThat(source).contains(node.text());
            }
            assertThat(doc.budget().verdict()).as(file.toString()).isNotEqualTo(TierBudget.Verdict.HARD_DEMOTED);
        }
    }

    @Test
    void theLargestRealDocumentKeepsItsStrongestRulesHardWithinATwoThousandTokenContextsLimit() throws Exception {
        MarkdownPartitioner small = new MarkdownPartitioner(PartitionConfig.defaults().withBudget(2000, 0.4, 0.3));
        PartitionedDocument doc = small.partition(Files.readAllBytes(DOCS.resolve("openai+openai-agents-python__AGENTS.md")));
        assertThat(doc.budget().verdict()).isEqualTo(TierBudget.Verdict.HARD_DEMOTED);
        assertThat(doc.budget().hardLimit()).isEqualTo(800);
        assertThat(doc.budget().hardTokens()).isEqualTo(doc.tier(1).stream().mapToLong(DocumentNode::tokens).sum())
                .isPositive().isLessThanOrEqualTo(800);
        assertThat(doc.budget().demotedHardNodes()).isPositive();
        assertThat(doc.warnings()).anyMatch(w -> w.contains(doc.budget().demotedHardNodes() + " hard rules moved"));
    }

    @Test
    void flinkAgentsAgentsMdTiersAsCheckedByHand() throws Exception {
        PartitionedDocument doc = partitioned("apache+flink-agents__AGENTS.md");
        // Read by hand: headings are lore; every paragraph but none of the headings holds an imperative
        // ("preserve the … direction", "Use repository scripts", "Use package paths", "Prefer focused tests",
        // "open or link a GitHub issue", "read code_review.md"); the command and checklist items are hard.
        assertThat(doc.nodes()).extracting(n -> n.kind().label() + ":" + n.tier()).containsExactly(
                "heading:0", "heading:0", "paragraph:2",
                "heading:0", "paragraph:2", "list_item:1", "list_item:1", "list_item:1", "list_item:1",
                "heading:0", "paragraph:2",
                "heading:0", "paragraph:2", "list_item:1",
                "heading:0", "paragraph:2",
                "heading:0", "paragraph:2");
        assertThat(doc.nodes().get(2).rules()).extracting(r -> r.action())
                .containsExactly("preserve the runtime -> plan -> api dependency direction in both Java and Python, "
                        + "with no reverse dependencies");
    }

    @Test
    void graphitiAgentsMdTiersAsCheckedByHand() throws Exception {
        PartitionedDocument doc = partitioned("getzep+graphiti__AGENTS.md");
        // Read by hand: the structure paragraph and the "All three run …" paragraph only describe; the style,
        // testing, commit, cloud, database and gotcha paragraphs hold imperatives; every list item is hard.
        assertThat(doc.nodes()).extracting(n -> n.kind().label() + ":" + n.tier()).containsExactly(
                "heading:0", "heading:0", "paragraph:0",
                "heading:0", "list_item:1", "list_item:1", "list_item:1", "list_item:1", "list_item:1",
                "list_item:1", "list_item:1",
                "heading:0", "paragraph:2",
                "heading:0", "paragraph:2",
                "heading:0", "paragraph:2",
                "heading:0", "paragraph:2",
                "heading:0", "paragraph:2", "list_item:1", "list_item:1",
                "heading:0", "list_item:1", "list_item:1", "list_item:1", "list_item:1",
                "heading:0", "paragraph:0", "list_item:1", "list_item:1",
                "heading:0", "paragraph:2");
    }

    @Test
    void theOnlyTierTheWiderLexerChangedInTheseDocumentsAsCheckedByHand() throws Exception {
        // Issue 26 widened what counts as a rule; across these eight documents one node changed tier (lore to soft
        // rule). Read by hand: it says what the release skill the agent runs must never do, a constraint on the
        // agent's own tooling, so a rule is the right reading of it.
        PartitionedDocument doc = partitioned("openai+openai-agents-python__AGENTS.md");
        DocumentNode node = doc.nodes().get(34);
        assertThat(node.text()).startsWith("The skill replaces the former GitHub Actions release-PR creator.");
        assertThat(node.tier()).isEqualTo(2);
        // Its last sentence obliges the release commit, the agent's work ("all runtime … must land on main").
        assertThat(node.rules()).extracting(r -> r.modality().code() + ":" + r.action()).containsExactly(
                "F:push, open or edit a pull request, create a release, or mutate any other GitHub state",
                "O:land on main before preparation");
    }

    @Test
    void readUnderTheirHeadingsTheDocumentsGainRulesButNoNodeChangesTier() throws Exception {
        // Issue 26's second round reads each node under its headings (SectionKind). Across the eight documents no
        // node changed tier (compared node by node with the lexer before it); these nodes gained rules, each read by
        // hand: present-tense conventions in "### Code Style" and "### Testing Requirements", and an instruction
        // in parentheses.
        PartitionedDocument claude = partitioned("getzep+graphiti__CLAUDE.md");
        assertThat(List.of(49, 52, 55)).extracting(i -> claude.nodes().get(i))
                .extracting(n -> n.tier() + ":" + n.rules().stream().map(r -> r.trigger() + ":" + r.action()).toList())
                .containsExactly("1:[CONVENTION:100 characters]",
                        "1:[CONVENTION:Main project uses typeCheckingMode = \"basic\", server uses typeCheckingMode = \"standard]",
                        "1:[CONVENTION:Integration tests require database connections and are marked with int suffix]");
        PartitionedDocument agents = partitioned("getzep+graphiti__AGENTS.md");
        assertThat(agents.nodes().get(31).rules()).extracting(r -> r.trigger() + ":" + r.action())
                .containsExactly("PARENTHETICAL:use port 8001 if 8000 is taken by the REST server");
        PartitionedDocument flink = partitioned("apache+flink-agents__AGENTS.md");
        assertThat(flink.nodes().get(12).rules()).extracting(r -> r.trigger() + ":" + r.action()).startsWith(
                "CONVENTION:Java tests use JUnit 5 with AssertJ and Mockito", "CONVENTION:Python tests use pytest");
    }

    @Test
    void aVerbAndAGerundBeforeAColonNameAStepAndTheNodeKeepsItsTier() throws Exception {
        // Issue 26's sixth round reads "Type checking:" as a label (a verb and a gerund before a colon), no longer
        // as the instruction "Type checking". The one node of the eight documents it changed, read by hand: the
        // item names a step whose command follows in a code block; its tier does not change.
        PartitionedDocument doc = partitioned("openai+openai-agents-python__AGENTS.md");
        DocumentNode node = doc.nodes().get(137);
        assertThat(node.text()).startsWith("- Type checking:");
        assertThat(node.rules()).isEmpty();
        assertThat(node.tier()).isEqualTo(1);
        assertThat(doc.nodes().get(136).rules()).extracting(Rule::action).containsExactly("Run a focused test");
    }

    @Test
    void anImperativeAfterAnAdverbAndItsConditionIsFoundAndTheNodeKeepsItsTier() throws Exception {
        // Issue 26's fourth round skips "Immediately" (and "Normally", "Usually" …) before a clause: the one node of
        // the eight documents it changed gains the instruction after "Immediately before starting that stack,",
        // read by hand; no node changed tier.
        PartitionedDocument doc = partitioned("openai+openai-agents-python__AGENTS.md");
        DocumentNode node = doc.nodes().get(19);
        assertThat(node.tier()).isEqualTo(2);
        assertThat(node.rules()).extracting(r -> r.modality().code() + ":" + r.action()).contains(
                "O:use available read-only task or process evidence to check for another broad test, typecheck, build,"
                        + " examples, or integration command already running on the same host");
    }

    @Test
    void soulMdInChineseFindsIdentityAndProhibitions() throws Exception {
        PartitionedDocument doc = partitioned("openclaw+openclaw__templates__SOUL.md");
        DocumentNode identity = doc.nodes().get(1);
        assertThat(identity.text()).startsWith("_你不是聊天机器人");
        assertThat(identity.tier()).isEqualTo(2);
        assertThat(identity.rules()).extracting(r -> r.modality().code() + ":" + r.action())
                .containsExactly("F:是聊天机器人", "O:是一个正在成形的专业智能体");
    }
}
