package io.engram.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.model.collapse.CollapseAlerts;
import io.engram.model.collapse.CollapseConfig;
import io.engram.model.collapse.CycleMetrics;
import io.engram.model.collapse.CycleRows;
import io.engram.model.collapse.StoreShape;
import io.engram.model.retrieval.RecordType;
import io.engram.store.RecordIds;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code ./engram collapse evaluate|shape}: the detector's pure functions on files, for operators. */
@Command(name = "collapse", mixinStandardHelpOptions = true,
        description = "The collapse and churn detector on files: replay alerts over history, or compute a store shape.",
        subcommands = {CollapseCommand.Evaluate.class, CollapseCommand.Shape.class})
final class CollapseCommand {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The thresholds' defaults are the detector's: one place, {@link CollapseConfig#DEFAULT}. */
    static final class DetectorDefaults implements IDefaultValueProvider {
        @Override
        public String defaultValue(ArgSpec argument) {
            CollapseConfig d = CollapseConfig.DEFAULT;
            if (!(argument instanceof OptionSpec option)) {
                return null;
            }
            Object value = switch (option.longestName()) {
                case "--window" -> d.window();
                case "--recall-drop" -> d.recallDrop();
                case "--entropy-drop" -> d.entropyDrop();
                case "--shrink-factor" -> d.shrinkFactor();
                case "--merge-floor-min" -> d.mergeFloorMin();
                case "--churn-min-accepted" -> d.churnMinAccepted();
                case "--churn-flatness" -> d.churnFlatness();
                default -> null;
            };
            return value == null ? null : String.valueOf(value);
        }
    }

    @Command(name = "evaluate", mixinStandardHelpOptions = true, defaultValueProvider = DetectorDefaults.class,
            description = {"Print, as JSON, the alerts a history of cycle_metrics rows fires.",
                    "Rows are JSON lines with fields named as the table's columns, oldest first; the last line is the",
                    "current row."})
    static final class Evaluate implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--rows", converter = ExistingPath.class, required = true, paramLabel = "FILE.jsonl")
        Path rows;

        // defaults: the detector's own (CollapseConfig.DEFAULT, through DetectorDefaults)
        @Option(names = "--window", description = "W, rows an alert looks back over (default ${DEFAULT-VALUE})")
        int window;
        @Option(names = "--recall-drop", description = "(default ${DEFAULT-VALUE})")
        double recallDrop;
        @Option(names = "--entropy-drop", description = "(default ${DEFAULT-VALUE})")
        double entropyDrop;
        @Option(names = "--shrink-factor", description = "(default ${DEFAULT-VALUE})")
        double shrinkFactor;
        @Option(names = "--merge-floor-min", description = "(default ${DEFAULT-VALUE})")
        int mergeFloorMin;
        @Option(names = "--churn-min-accepted", description = "(default ${DEFAULT-VALUE})")
        long churnMinAccepted;
        @Option(names = "--churn-flatness", description = "(default ${DEFAULT-VALUE})")
        double churnFlatness;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            List<CycleMetrics> history = new ArrayList<>();
            for (JsonLine line : JsonLine.read(rows)) {
                try {
                    history.add(CycleRows.fromJson(line.text()));
                } catch (IllegalArgumentException e) {
                    spec.commandLine().getErr().println(rows + ":" + line.number() + ": " + e.getMessage());
                    return 2;
                }
            }
            if (history.isEmpty()) {
                spec.commandLine().getErr().println(rows + ": no rows");
                return 2;
            }
            CycleMetrics current = history.remove(history.size() - 1);
            CollapseConfig d = CollapseConfig.DEFAULT;
            CollapseConfig config = new CollapseConfig(window, recallDrop, entropyDrop, shrinkFactor, mergeFloorMin,
                    churnMinAccepted, churnFlatness, d.maxGeneration(), d.canaryCount(), d.k());
            ArrayNode alerts = JSON.createArrayNode();
            for (CollapseAlerts.Alert a : CollapseAlerts.evaluate(history, current, config)) {
                alerts.addObject().put("kind", a.kind().label()).put("detail", a.detail());
            }
            ObjectNode result = JSON.createObjectNode().put("tenant_id", current.tenantId()).put("cycle_id", current.cycleId());
            result.set("alerts", alerts);
            out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(result));
            return 0;
        }
    }

    @Command(name = "shape", mixinStandardHelpOptions = true,
            description = {"Print, as JSON, each tenant's store shape for a set of memory records.",
                    "Records are JSON lines {tenant_id, memory_id, type, text, generation, source_refs}."})
    static final class Shape implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--records", converter = ExistingPath.class, required = true, paramLabel = "FILE.jsonl")
        Path records;

        @Option(names = "--max-generation", defaultValue = "2", description = "over-generation above (default ${DEFAULT-VALUE})")
        int maxGeneration;

        @Override
        public Integer call() throws Exception {
            Map<String, StoreShape> shapes = new TreeMap<>();
            for (JsonLine line : JsonLine.read(records)) {
                try {
                    JsonNode r = JSON.readTree(line.text());
                    String tenant = r.get("tenant_id").asText();
                    shapes.computeIfAbsent(tenant, t -> new StoreShape(maxGeneration)).upsert(StoreShape.Entry.of(
                            RecordIds.memory(tenant, r.get("memory_id").asText()),
                            RecordType.ofLabel(r.get("type").asText()), r.get("text").asText(),
                            r.path("generation").asInt(0)));
                } catch (Exception e) {
                    spec.commandLine().getErr().println(records + ":" + line.number() + ": not a memory record ("
                            + e.getMessage() + ")");
                    return 2;
                }
            }
            ObjectNode out = JSON.createObjectNode();
            shapes.forEach((tenant, shape) -> {
                StoreShape.Metrics m = shape.metrics();
                ObjectNode o = out.putObject(tenant);
                o.put("store_total", m.total());
                ObjectNode byType = o.putObject("store_by_type");
                m.byType().forEach((type, count) -> byType.put(type.label(), count));
                o.put("distinct_content_ratio", m.distinctContentRatio())
                        .put("mean_bigram_diversity", m.meanBigramDiversity())
                        .put("over_generation_count", m.overGenerationCount())
                        .put("sample_size", shape.sampleIds().size());
            });
            spec.commandLine().getOut().println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(out));
            return 0;
        }
    }
}
