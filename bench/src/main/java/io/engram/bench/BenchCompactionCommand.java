package io.engram.bench;

import io.engram.launcher.ExistingPath;
import io.engram.launcher.LocomoData;
import io.engram.model.compaction.Clusters;
import io.engram.model.compaction.ExtractiveSummarizer;
import io.engram.model.compaction.SessionCompactor.Turn;
import io.engram.model.embed.CachingEmbedder;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.retrieval.ContinuityTail;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Compaction quality on real conversations: every cluster the production rule would form, summarised by the
 * turn-level baseline and by the sentence-level MMR variant at the baseline's length.
 */
@Command(name = "compaction", mixinStandardHelpOptions = true,
        description = "Q_align, Q_cover, confidence and token reduction of the extractive summaries on LoCoMo.")
final class BenchCompactionCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--data", converter = ExistingPath.class, required = true, paramLabel = "FILE", description = "LoCoMo JSON.")
    Path data;

    private record Pair(ExtractiveSummarizer.Summary baseline, ExtractiveSummarizer.Summary variant) {
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        List<Pair> pairs = new ArrayList<>();
        int clusters = 0;
        try (CachingEmbedder embedder = new CachingEmbedder(EmbeddingModel.ALL_MINILM_L6_V2.open(), 50_000)) {
            ExtractiveSummarizer baseline = new ExtractiveSummarizer(embedder, ExtractiveSummarizer.Options.TURNS);
            ExtractiveSummarizer variant = new ExtractiveSummarizer(embedder, ExtractiveSummarizer.Options.SENTENCES);
            for (LocomoData.Conversation c : LocomoData.read(data)) {
                List<Turn> turns = new ArrayList<>();
                for (LocomoData.Turn t : c.turns()) {
                    String text = t.speaker() + ": " + t.text();
                    turns.add(new Turn(t.diaId(), turns.size(), t.speaker().equals(c.speakerA()) ? "user" : "assistant",
                            text, t.ts(), embedder.tokenCounter().count(text)));
                }
                int tailStart = ContinuityTail.DEFAULT.start(turns, Turn::tokens);
                for (int[] range : Clusters.of(tailStart, Clusters.DEFAULT_K)) {
                    List<String> texts = turns.subList(range[0], range[1]).stream().map(Turn::text).toList();
                    clusters++;
                    Optional<ExtractiveSummarizer.Summary> b = baseline.summarize(texts);
                    if (b.isEmpty()) {
                        continue;
                    }
                    variant.summarizeWithin(texts, b.get().summaryTokens())
                            .ifPresent(v -> pairs.add(new Pair(b.get(), v)));
                }
                out.printf(Locale.ROOT, "%s: %d turns, %d compactable%n", c.sampleId(), turns.size(), tailStart);
            }
        }
        out.printf(Locale.ROOT, "%d clusters, %d summarised by both at equal length%n%n", clusters, pairs.size());
        out.printf(Locale.ROOT, "%-34s %-10s %7s %7s %7s %7s%n", "metric", "variant", "mean", "p10", "p50", "p90");
        row(out, "Q_align", pairs, s -> s.score().qAlign());
        row(out, "Q_cover", pairs, s -> s.score().qCover());
        row(out, "confidence", pairs, s -> s.score().confidence());
        row(out, "token reduction (1 - summary/source)", pairs, ExtractiveSummarizer.Summary::tokenReduction);
        row(out, "summary tokens", pairs, s -> s.summaryTokens());
        long better = pairs.stream().filter(p -> p.variant().score().qCover() > p.baseline().score().qCover()).count();
        double delta = pairs.stream().mapToDouble(p -> p.variant().score().qCover() - p.baseline().score().qCover())
                .average().orElse(0);
        out.printf(Locale.ROOT, "%nsentence-level Q_cover higher in %d of %d clusters; mean difference %+.4f%n",
                better, pairs.size(), delta);
        out.flush();
        return 0;
    }

    private static void row(PrintWriter out, String metric, List<Pair> pairs,
                            ToDoubleFunction<ExtractiveSummarizer.Summary> f) {
        print(out, metric, "turns", pairs.stream().mapToDouble(p -> f.applyAsDouble(p.baseline())).toArray());
        print(out, "", "sentences", pairs.stream().mapToDouble(p -> f.applyAsDouble(p.variant())).toArray());
    }

    private static void print(PrintWriter out, String metric, String variant, double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        out.printf(Locale.ROOT, "%-34s %-10s %7.3f %7.3f %7.3f %7.3f%n", metric, variant,
                Arrays.stream(values).average().orElse(0), at(sorted, 0.1), at(sorted, 0.5), at(sorted, 0.9));
    }

    private static double at(double[] sorted, double q) {
        return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) Math.floor(q * sorted.length))];
    }
}
