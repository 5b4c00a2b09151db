package io.engram.bench;

import io.engram.client.EngramProducer;
import io.engram.client.KafkaClients;
import io.engram.client.Payload;
import io.engram.client.Topics;
import io.engram.jobs.PipelineConfig;
import io.engram.launcher.ExistingPath;
import io.engram.launcher.LocomoData;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.embed.OnnxEmbedder;
import io.engram.model.partition.DocumentNode;
import io.engram.model.partition.MarkdownPartitioner;
import io.engram.model.partition.PartitionConfig;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedStack;
import io.engram.stack.ServiceOptions;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Throughput of the whole pipeline (Kafka → Flink → OpenSearch) on this machine, side by side with the
 * embedder alone on the same texts, and freshness: produce-to-searchable latency at steady rates (1, 10, 100/s).
 * Throughput counts from the first record searchable to the last, so the MiniCluster's start and the model's
 * load are left out of both sides. The throughput jobs of a run share one MiniCluster, as a deployment's jobs share
 * their cluster ({@link SharedMiniClusters}).
 */
@Command(name = "pipeline", mixinStandardHelpOptions = true,
        description = "Pipeline throughput (turns/s, documents/s) against the embedder alone, and freshness p50/p95/p99 per rate.")
final class BenchPipelineCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /** The throughput jobs' clusters, kept for the whole run. */
    private final SharedMiniClusters clusters = new SharedMiniClusters();
    private final PipelineThroughput throughput = new PipelineThroughput(clusters);

    @Option(names = "--data", converter = ExistingPath.class, paramLabel = "FILE",
            description = "LoCoMo JSON whose conversations are the turns (required unless --freshness-only)")
    Path data;

    @Option(names = "--agent-documents", converter = ExistingPath.class, paramLabel = "DIR",
            defaultValue = "${sys:engram.root:-.}/data/agents-md",
            description = "real agent documents, the documents phase's input (default: the repository's data/agents-md)")
    Path agentDocuments;

    @Option(names = "--turns", defaultValue = "4000", description = "turns to push through, LoCoMo's replayed as needed (default: ${DEFAULT-VALUE})")
    int turns;

    @Option(names = "--warm-up-runs", defaultValue = "5", description = "pipeline runs over the turns before the measured one (default: ${DEFAULT-VALUE})")
    int warmUpRuns;

    @Option(names = "--documents", defaultValue = "70", description = "documents to push through, 0 for none (default: ${DEFAULT-VALUE})")
    int documents;

    @Option(names = "--rates", split = ",", paramLabel = "N", description = "memories per second for freshness, one run"
            + " each (default: 1,10,100)")
    List<Integer> rates = List.of(1, 10, 100);

    @Option(names = "--seconds", defaultValue = "30", description = "freshness duration per rate (default: ${DEFAULT-VALUE})")
    int seconds;

    @Option(names = "--embed-models", split = ",", paramLabel = "ID[,ID]", converter = ModelConverter.class,
            description = "embedding models to measure the turns with, one after the other in this run; documents and"
                    + " freshness use the first (default: the pipeline's default)")
    List<EmbeddingModel> models = List.of(PipelineConfig.defaults().embeddingModel());

    /** A model id on the command line. */
    static final class ModelConverter implements CommandLine.ITypeConverter<EmbeddingModel> {
        @Override
        public EmbeddingModel convert(String value) {
            return EmbeddingModel.ofId(value);
        }
    }

    @Option(names = "--freshness-only", description = "measure freshness only")
    boolean freshnessOnly;

    @Option(names = "--metrics-cost", description = "after the measured run, alternate runs with Engram's metrics and"
            + " Flink's Prometheus reporter on and with metrics.enabled=false, two each, and report the ratio")
    boolean metricsCost;

    @Option(names = "--setting", paramLabel = "KEY=VALUE", description = "a pipeline setting for every job of the run"
            + " (the keys in docs/operations.md), e.g. --setting opensearch.bulk-delay=200ms; repeatable")
    Map<String, String> settings = new LinkedHashMap<>();

    @Option(names = "--checkpoint-interval", defaultValue = "10s", description = "checkpoint interval (default: ${DEFAULT-VALUE})")
    String checkpointInterval;

    /** Servers another process runs, as a deployment has them: the job's CPU is then the job's alone. */
    @Option(names = "--kafka", paramLabel = "HOST:PORT", description = "Kafka of servers already running (with"
            + " --opensearch and --postgres; e.g. `./engram stack up`'s) instead of the embedded stack in this JVM")
    String externalKafka;

    @Option(names = "--opensearch", paramLabel = "URL", description = "OpenSearch of servers already running")
    String externalOpenSearch;

    @Option(names = "--postgres", paramLabel = "JDBC-URL", description = "PostgreSQL of servers already running")
    String externalPostgres;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (data == null && !freshnessOnly) {
            throw new CommandLine.ParameterException(spec.commandLine(), "Missing required option: '--data=FILE' (LoCoMo JSON)");
        }
        boolean external = externalKafka != null || externalOpenSearch != null || externalPostgres != null;
        if (external && (externalKafka == null || externalOpenSearch == null || externalPostgres == null)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--kafka, --opensearch and --postgres go together");
        }
        try (EmbeddedStack stack = external ? null : EmbeddedStack.start(EmbeddedStack.Config.all(Optional.empty()), (s, a) -> { });
             SharedMiniClusters closedBeforeTheStack = clusters) {
            String kafka = external ? externalKafka : stack.kafka().orElseThrow().bootstrapServers();
            Topics.create(KafkaClients.at(kafka), 2);
            Properties p = new Properties();
            p.setProperty("kafka.bootstrap", kafka);
            p.setProperty("kafka.bounded", "true");
            p.setProperty("opensearch.url", external ? externalOpenSearch : stack.openSearch().orElseThrow().httpUrl());
            // a run of its own on servers that outlive it: indexes and groups are named per run
            p.setProperty("opensearch.index", "engram-memories-bench-pipeline" + (external ? "-" + System.currentTimeMillis() : ""));
            p.setProperty("postgres.url", external ? externalPostgres : stack.postgres().orElseThrow().jdbcUrl());
            p.setProperty("checkpoint.interval", checkpointInterval);
            p.setProperty("parallelism", "1");
            p.setProperty("embed.model", models.get(0).id());
            p.putAll(settings);
            try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(p.getProperty("opensearch.url"),
                    p.getProperty("opensearch.index"), RetryPolicy.DEFAULT);
                 OnnxEmbedder embedder = models.get(0).open()) {
                if (freshnessOnly) {
                    new PipelineFreshness(rates, seconds).run(out, p, store, kafka);
                    return 0;
                }
                // turns
                List<String> turnTexts = new ArrayList<>();
                long turnsFrom = System.currentTimeMillis();
                List<LocomoData.Conversation> conversations = LocomoData.read(data);
                // each replay later in event time than the one before, so none of it arrives late
                Duration replaySpan = Duration.ofDays(1).plus(Duration.between(
                        conversations.stream().flatMap(c -> c.turns().stream()).map(LocomoData.Turn::ts).min(Instant::compareTo).orElseThrow(),
                        conversations.stream().flatMap(c -> c.turns().stream()).map(LocomoData.Turn::ts).max(Instant::compareTo).orElseThrow()));
                try (EngramProducer producer = new EngramProducer(kafka)) {
                    // LoCoMo's conversations replayed until there are enough turns; each replay marks its texts,
                    // so no text repeats and the embedding cache saves nothing the embedder alone would not
                    for (int pass = 0; turnTexts.size() < turns; pass++) {
                        for (LocomoData.Conversation c : conversations) {
                            for (LocomoData.Turn t : c.turns()) {
                                if (turnTexts.size() == turns) {
                                    break;
                                }
                                int n = turnTexts.size();
                                String text = pass == 0 ? t.text() : "(" + pass + ") " + t.text();
                                producer.send(Payload.turn("bench-t" + (n % 4), c.sampleId() + "-p" + pass + "-s"
                                        + t.session(), t.speaker(), t.diaId() + "-" + n, n, n % 2 == 0 ? "user" : "assistant",
                                        text, t.ts().plus(replaySpan.multipliedBy(pass))));
                                turnTexts.add(text);
                            }
                        }
                    }
                }
                for (EmbeddingModel model : models) {
                    turns(out, p, model, turnTexts, turnsFrom);
                }

                if (documents > 0) {
                    documents(out, p, embedder, kafka);
                }
                new PipelineFreshness(rates, seconds).run(out, p, store, kafka);
            }
        }
        return 0;
    }

    /** The documents phase: distinct paths, so every one is partitioned and embedded. */
    private void documents(PrintWriter out, Properties p, OnnxEmbedder embedder, String kafka) throws Exception {
        MarkdownPartitioner partitioner = new MarkdownPartitioner(PartitionConfig.defaults()
                .withTokens(embedder.tokenCounter()));
        List<String> sources;
        try (Stream<Path> files = Files.list(agentDocuments)) {
            sources = files.filter(f -> f.getFileName().toString().contains("__")).sorted()
                    .map(f -> read(f)).filter(s -> s.length() > 1000).toList();
        }
        List<String> chunkTexts = new ArrayList<>();
        long docsFrom = System.currentTimeMillis();
        try (EngramProducer producer = new EngramProducer(kafka)) {
            for (int i = 0; i < documents; i++) {
                String content = sources.get(i % sources.size()) + "\n- Revision note " + i + ".\n";
                producer.send(Payload.doc("bench-d" + (i % 4), "agent", "DOC-" + i + ".md", "standard", 1,
                        content, Instant.parse("2026-11-01T00:00:00Z").plusSeconds(i)));
                for (DocumentNode node : partitioner.partition(content).storedNodes()) {
                    chunkTexts.add(node.text());
                }
            }
        }
        PipelineThroughput.Measured embedderChunksBefore = PipelineThroughput.embedderAlone(embedder, chunkTexts);
        PipelineThroughput.Measured pipelineChunks = throughput.measure(p, "docs", docsFrom, null, chunkTexts.size());
        PipelineThroughput.Measured embedderChunksAfter = PipelineThroughput.embedderAlone(embedder, chunkTexts);
        double embedderChunks = (embedderChunksBefore.perSecond() + embedderChunksAfter.perSecond()) / 2;
        double perDocument = chunkTexts.size() / (double) documents;
        out.printf(Locale.ROOT, "documents: pipeline %7.2f /s   embedder alone %7.2f /s   ratio %.2f"
                        + "   (%.0f chunks per document: %.1f vs %.1f chunks/s)%n",
                pipelineChunks.perSecond() / perDocument, embedderChunks / perDocument,
                pipelineChunks.perSecond() / embedderChunks, perDocument, pipelineChunks.perSecond(), embedderChunks);
        out.printf(Locale.ROOT, "documents: pipeline %s (per chunk)%n", pipelineChunks.cpu());
        out.printf(Locale.ROOT, "documents: embedder alone %s (per chunk)%n", embedderChunksAfter.cpu());
        out.flush();

    }

    /** The turns through the pipeline embedding with {@code model}, and {@code model} alone on the same texts. */
    private void turns(PrintWriter out, Properties p, EmbeddingModel model, List<String> turnTexts, long turnsFrom)
            throws Exception {
        Properties q = new Properties();
        q.putAll(p);
        q.setProperty("embed.model", model.id());
        try (OnnxEmbedder embedder = model.open()) {
            // A job is a long-running process; measured here it would be cold for minutes: the JIT compiles
            // Flink's, Lucene's, OpenSearch's and Kafka's paths on the same two cores. Warm-up jobs run the same
            // input first, each into a fresh index with a fresh embedding cache, on the cluster the measured job
            // runs on, and are reported too.
            for (int run = 1; run <= warmUpRuns; run++) {
                PipelineThroughput.Measured warmUp = throughput.measure(q, "turns-" + model.id() + "-warm-up-" + run, turnsFrom, RecordType.TURN, turnTexts.size());
                out.printf(Locale.ROOT, "turns (%s): warm-up job %d: %.1f /s, %s%n", model.id(), run, warmUp.perSecond(), warmUp.cpu());
                out.flush();
            }
            // the embedder alone runs right before and right after the pipeline: this machine's speed drifts
            // by tens of percent between minutes, and the mean of the two brackets the pipeline's run
            PipelineThroughput.Measured embedderTurnsBefore = PipelineThroughput.embedderAlone(embedder, turnTexts);
            PipelineThroughput.Measured pipelineTurns = throughput.measure(q, "turns-" + model.id(), turnsFrom, RecordType.TURN, turnTexts.size());
            PipelineThroughput.Measured embedderTurnsAfter = PipelineThroughput.embedderAlone(embedder, turnTexts);
            double embedderTurns = (embedderTurnsBefore.perSecond() + embedderTurnsAfter.perSecond()) / 2;
            out.printf(Locale.ROOT, "turns (%s): pipeline %7.1f /s   embedder alone %7.1f /s (%.1f before, %.1f after)"
                            + "   ratio %.2f%n", model.id(), pipelineTurns.perSecond(), embedderTurns,
                    embedderTurnsBefore.perSecond(), embedderTurnsAfter.perSecond(),
                    pipelineTurns.perSecond() / embedderTurns);
            EmbedTexts.Counts texts = pipelineTurns.texts();
            out.printf(Locale.ROOT, "turns (%s): the embedding operator's model embedded %d texts for %d turns (%.2f per"
                            + " turn; compaction, sharing the cache, embeds some turns first); it asked for %d texts (a"
                            + " window asks for its turns') and gave %d records a vector%n", model.id(),
                    texts.model(), turnTexts.size(), texts.model() / (double) turnTexts.size(), texts.asked(), texts.vectors());
            double drift = Math.abs(embedderTurnsBefore.perSecond() - embedderTurnsAfter.perSecond()) / embedderTurns;
            if (drift > 0.05) {
                out.printf(Locale.ROOT, "turns (%s): the embedder alone moved %.0f %% between its two runs: this machine's"
                        + " speed changed during the measurement, and the ratio is uncertain by about as much%n", model.id(),
                        drift * 100);
            }
            out.printf(Locale.ROOT, "turns (%s): pipeline %s%n", model.id(), pipelineTurns.cpu());
            out.printf(Locale.ROOT, "turns (%s): embedder alone %s%n", model.id(), embedderTurnsAfter.cpu());
            out.flush();
            if (metricsCost) {
                metricsCost(out, q, model, turnTexts.size(), turnsFrom);
            }
        }
    }

    /**
     * Throughput with the metrics as production runs them (registered, updated, and a Prometheus reporter
     * serving them) against {@code metrics.enabled=false}, alternating on, off, on, off so the machine's drift
     * falls on both.
     */
    private void metricsCost(PrintWriter out, Properties base, EmbeddingModel model, int turns, long turnsFrom)
            throws Exception {
        Properties on = new Properties();
        on.putAll(base);
        on.setProperty("flink.metrics.reporter.prom.factory.class",
                "org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
        on.setProperty("flink.metrics.reporter.prom.port", String.valueOf(ServiceOptions.freePort()));
        Properties off = new Properties();
        off.putAll(base);
        off.setProperty("metrics.enabled", "false");
        List<Double> withMetrics = new ArrayList<>();
        List<Double> without = new ArrayList<>();
        for (int pair = 1; pair <= 2; pair++) {
            withMetrics.add(throughput.measure(on, "turns-" + model.id() + "-metrics-on-" + pair, turnsFrom, RecordType.TURN, turns).perSecond());
            without.add(throughput.measure(off, "turns-" + model.id() + "-metrics-off-" + pair, turnsFrom, RecordType.TURN, turns).perSecond());
            out.printf(Locale.ROOT, "turns (%s): metrics on %.1f /s, off %.1f /s (pair %d)%n", model.id(),
                    withMetrics.get(pair - 1), without.get(pair - 1), pair);
            out.flush();
        }
        double meanOn = withMetrics.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
        double meanOff = without.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
        out.printf(Locale.ROOT, "turns (%s): metrics on %.1f /s, off %.1f /s (means of two), on/off %.3f%n", model.id(),
                meanOn, meanOff, meanOn / meanOff);
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
