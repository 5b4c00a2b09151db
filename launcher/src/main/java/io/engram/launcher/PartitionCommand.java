package io.engram.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.model.deontic.Rule;
import io.engram.model.deontic.SerialityConflict;
import io.engram.model.partition.DocumentNode;
import io.engram.model.partition.InvalidDocumentException;
import io.engram.model.partition.MarkdownPartitioner;
import io.engram.model.partition.PartitionConfig;
import io.engram.model.partition.PartitionedDocument;
import io.engram.model.partition.TierBudget;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "partition", mixinStandardHelpOptions = true,
        description = {"Split an agent document into hard rules, soft rules and lore.",
                "Tiers 1, 2 and 0, with the token budgets checked. Exit status: 0 accepted, 3 rejected by the hard",
                "budget, 2 invalid input."})
final class PartitionCommand implements Callable<Integer> {

    static final int EXIT_INVALID = 2;
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE", converter = ExistingPath.class, description = "The Markdown document.")
    Path file;

    @Option(names = "--json", description = "Print one JSON object for the document.")
    boolean json;

    @Option(names = "--budget", paramLabel = "TOKENS", description = "Context budget tau (default: ${DEFAULT-VALUE}).")
    int budget = PartitionConfig.DEFAULT_TAU;

    @Option(names = "--alpha1", paramLabel = "X", description = "Share of tau for hard rules (default: ${DEFAULT-VALUE}).")
    double alpha1 = TierBudget.DEFAULT_ALPHA1;

    @Option(names = "--alpha2", paramLabel = "Y", description = "Share of tau for soft rules (default: ${DEFAULT-VALUE}).")
    double alpha2 = TierBudget.DEFAULT_ALPHA2;

    @Option(names = "--rule-reader", description = "Read rules sentence by sentence with the learned rule reader beside the lexer.")
    boolean ruleReader;

    @Option(names = "--seed-tiers", description = "The seed's tiers: every list item and the front matter hard, "
            + "whether or not it states a rule.")
    boolean seedTiers;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!Files.isRegularFile(file)) {
            err.println("engram partition: no such file: " + file);
            return EXIT_INVALID;
        }
        PartitionedDocument document;
        try {
            PartitionConfig config = PartitionConfig.defaults().withBudget(budget, alpha1, alpha2)
                    .withRuleReader(ruleReader).withListItemsByRule(!seedTiers);
            document = new MarkdownPartitioner(config).partition(Files.readAllBytes(file));
        } catch (InvalidDocumentException e) {
            err.println("engram partition: " + e.reason() + ": " + e.getMessage());
            return EXIT_INVALID;
        } catch (IllegalArgumentException e) {
            err.println("engram partition: " + e.getMessage());
            return EXIT_INVALID;
        }
        if (json) {
            out.println(JSON.writeValueAsString(toJson(document)));
        } else {
            printText(document, out);
        }
        out.flush();
        return 0;
    }

    static ObjectNode toJson(PartitionedDocument document) {
        ObjectNode root = JSON.createObjectNode();
        root.put("cache_key", document.cacheKey());
        ArrayNode nodes = root.putArray("nodes");
        for (DocumentNode node : document.nodes()) {
            ObjectNode n = nodes.addObject();
            n.put("index", node.index());
            n.put("kind", node.kind().label());
            n.put("tier", node.tier());
            n.put("text", node.text());
            n.put("tokens", node.tokens());
            n.put("line_start", node.lineStart());
            n.put("line_end", node.lineEnd());
            ArrayNode rules = n.putArray("rules");
            for (Rule rule : node.rules()) {
                rules.addObject().put("modality", rule.modality().code()).put("action", rule.action());
            }
        }
        ArrayNode conflicts = root.putArray("conflicts");
        for (SerialityConflict c : document.conflicts()) {
            conflicts.addObject().put("action", c.action())
                    .put("obligatory_node", c.obligatoryNode()).put("forbidden_node", c.forbiddenNode());
        }
        TierBudget b = document.budget();
        root.putObject("budget")
                .put("tau", b.tau())
                .put("hard_tokens", b.hardTokens())
                .put("hard_limit", b.hardLimit())
                .put("soft_tokens", b.softTokens())
                .put("soft_limit", b.softLimit())
                .put("verdict", b.verdict().label())
                .put("truncated_soft_nodes", b.truncatedSoftNodes())
                .put("demoted_hard_nodes", b.demotedHardNodes());
        ArrayNode warnings = root.putArray("warnings");
        document.warnings().forEach(warnings::add);
        return root;
    }

    private static void printText(PartitionedDocument document, PrintWriter out) {
        out.printf("%-5s %-4s %-13s %6s  %-9s  %s%n", "node", "tier", "kind", "tokens", "lines", "rules / text");
        for (DocumentNode node : document.nodes()) {
            String rules = node.rules().stream()
                    .map(r -> r.modality().code() + "(" + abbreviate(r.action(), 50) + ")")
                    .collect(Collectors.joining(" "));
            out.printf("%-5d %-4d %-13s %6d  %-9s  %s%n", node.index(), node.tier(), node.kind().label(), node.tokens(),
                    node.lineStart() + "-" + node.lineEnd(),
                    rules.isEmpty() ? abbreviate(node.text().replace('\n', ' '), 70) : rules);
        }
        for (SerialityConflict c : document.conflicts()) {
            out.printf("conflict: '%s' is obligatory in node %d and forbidden in node %d%n",
                    c.action(), c.obligatoryNode(), c.forbiddenNode());
        }
        document.warnings().forEach(w -> out.println("warning: " + w));
        out.println("budget: " + document.budget().explain());
    }

    private static String abbreviate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }
}
