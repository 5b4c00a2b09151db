package io.engram.launcher;

import io.engram.client.EngramProducer;
import io.engram.client.Payload;
import io.engram.client.Topics;
import io.engram.jobs.EngramJob;
import io.engram.jobs.EngramPipeline;
import io.engram.jobs.PipelineConfig;
import io.engram.jobs.embed.SharedEmbedder;
import io.engram.jobs.store.OpenSearchMemoryStore;
import io.engram.jobs.store.RecordIds;
import io.engram.jobs.store.RetryPolicy;
import io.engram.model.embed.EmbedderOptions;
import io.engram.model.embed.OnnxEmbedder;
import io.engram.model.partition.DocumentNode;
import io.engram.model.partition.MarkdownPartitioner;
import io.engram.model.partition.PartitionConfig;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedStack;
import io.engram.stack.EmbeddedStack.Service;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Throughput of the whole pipeline (Kafka → Flink → OpenSearch) on this machine, side by side with the
 * embedder alone on the same texts, and freshness: produce-to-searchable latency at a steady rate.
 * Throughput counts from the first record searchable to the last, so the MiniCluster's start and the model's
 * load are left out of both sides.
 */
@Command(name = "pipeline", mixinStandardHelpOptions = true,
        description = "Pipeline throughput (turns/s, documents/s) against the embedder alone, and freshness p50/p99.")
final class BenchPipelineCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--datasets", defaultValue = "../shared/datasets", description = "LoCoMo and agent documents (default: ${DEFAULT-VALUE})")
    Path datasets;

    @Option(names = "--turns", defaultValue = "2000", description = "turns to push through (default: ${DEFAULT-VALUE})")
    int turns;

    @Option(names = "--documents", defaultValue = "70", description = "documents to push through (default: ${DEFAULT-VALUE})")
    int documents;

    @Option(names = "--rate", defaultValue = "10", description = "memories per second for freshness (default: ${DEFAULT-VALUE})")
    int rate;

    @Option(names = "--seconds", defaultValue = "30", description = "freshness duration (default: ${DEFAULT-VALUE})")
    int seconds;

    @Option(names = "--freshness-only", description = "measure freshness only")
    boolean freshnessOnly;

    @Option(names = "--checkpoint-interval", defaultValue = "10s", description = "checkpoint interval (default: ${DEFAULT-VALUE})")
    String checkpointInterval;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try (EmbeddedStack stack = EmbeddedStack.start(new EmbeddedStack.Config(EnumSet.allOf(Service.class), 0, 0, 0,
                Optional.empty()), (s, a) -> { })) {
            String kafka = stack.kafka().orElseThrow().bootstrapServers();
            Topics.create(kafka, 2);
            Properties p = new Properties();
            p.setProperty("kafka.bootstrap", kafka);
            p.setProperty("kafka.bounded", "true");
            p.setProperty("opensearch.url", stack.openSearch().orElseThrow().httpUrl());
            p.setProperty("opensearch.index", "engram-memories-bench-pipeline");
            p.setProperty("postgres.url", stack.postgres().orElseThrow().jdbcUrl());
            p.setProperty("checkpoint.interval", checkpointInterval);
            p.setProperty("parallelism", "1");
            try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(p.getProperty("opensearch.url"),
                    p.getProperty("opensearch.index"), RetryPolicy.DEFAULT);
                 OnnxEmbedder embedder = OnnxEmbedder.allMiniLmL6V2(EmbedderOptions.defaults())) {
                if (freshnessOnly) {
                    freshness(out, p, store, kafka);
                    return 0;
                }
                // turns
                List<String> turnTexts = new ArrayList<>();
                try (EngramProducer producer = new EngramProducer(kafka)) {
                    int n = 0;
                    for (LocomoData.Conversation c : LocomoData.read(datasets.resolve("locomo/locomo-dev.json"))) {
                        for (LocomoData.Turn t : c.turns()) {
                            if (n == turns) {
                                break;
                            }
                            String tenant = "bench-t" + (n % 4);
                            producer.send(Payload.turn(tenant, c.sampleId() + "-s" + t.session(), t.speaker(),
                                    t.diaId() + "-" + n, n, n % 2 == 0 ? "user" : "assistant", t.text(), t.ts()));
                            turnTexts.add(t.text());
                            n++;
                        }
                    }
                }
                // the embedder alone runs right before and right after the pipeline: this machine's speed drifts
                // by tens of percent between minutes, and the mean of the two brackets the pipeline's run
                double embedderTurnsBefore = embedderAlone(embedder, turnTexts);
                long embeddedBefore = SharedEmbedder.modelEmbeddings();
                double pipelineTurns = throughput(p, "bench-turns", store, RecordType.TURN, turnTexts.size());
                out.printf(Locale.ROOT, "turns:     the model embedded %.2f texts per turn in the pipeline%n",
                        (SharedEmbedder.modelEmbeddings() - embeddedBefore) / (double) turnTexts.size());
                double embedderTurnsAfter = embedderAlone(embedder, turnTexts);
                double embedderTurns = (embedderTurnsBefore + embedderTurnsAfter) / 2;
                out.printf(Locale.ROOT, "turns:     pipeline %7.1f /s   embedder alone %7.1f /s (%.1f before, %.1f after)"
                                + "   ratio %.2f%n", pipelineTurns, embedderTurns, embedderTurnsBefore, embedderTurnsAfter,
                        pipelineTurns / embedderTurns);
                out.flush();

                // documents: distinct paths, so every one is partitioned and embedded
                MarkdownPartitioner partitioner = new MarkdownPartitioner(PartitionConfig.defaults()
                        .withTokens(embedder.tokenCounter()));
                List<String> sources;
                try (Stream<Path> files = Files.list(datasets.resolve("agents-md"))) {
                    sources = files.filter(f -> f.getFileName().toString().contains("__")).sorted()
                            .map(f -> read(f)).filter(s -> s.length() > 1000).toList();
                }
                List<String> chunkTexts = new ArrayList<>();
                try (EngramProducer producer = new EngramProducer(kafka)) {
                    for (int i = 0; i < documents; i++) {
                        String content = sources.get(i % sources.size()) + "\n- Revision note " + i + ".\n";
                        producer.send(Payload.doc("bench-d" + (i % 4), "agent", "DOC-" + i + ".md", "standard", 1,
                                content, Instant.parse("2026-11-01T00:00:00Z").plusSeconds(i)));
                        for (DocumentNode node : partitioner.partition(content).nodes()) {
                            chunkTexts.add(node.text());
                        }
                    }
                }
                double embedderChunksBefore = embedderAlone(embedder, chunkTexts);
                double pipelineChunks = throughput(p, "bench-docs", store, null, chunkTexts.size());
                double embedderChunks = (embedderChunksBefore + embedderAlone(embedder, chunkTexts)) / 2;
                double perDocument = chunkTexts.size() / (double) documents;
                out.printf(Locale.ROOT, "documents: pipeline %7.2f /s   embedder alone %7.2f /s   ratio %.2f"
                                + "   (%.0f chunks per document: %.1f vs %.1f chunks/s)%n",
                        pipelineChunks / perDocument, embedderChunks / perDocument, pipelineChunks / embedderChunks,
                        perDocument, pipelineChunks, embedderChunks);
                out.flush();

                freshness(out, p, store, kafka);
            }
        }
        return 0;
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Records per second from the first searchable to the last of {@code expected} (type null: chunks). */
    private static double throughput(Properties base, String group, OpenSearchMemoryStore store, RecordType type,
                                     int expected) throws Exception {
        Properties p = new Properties();
        p.putAll(base);
        p.setProperty("kafka.group", group);
        PipelineConfig config = PipelineConfig.fromProperties(p);
        AtomicLong first = new AtomicLong();
        AtomicLong last = new AtomicLong();
        Thread poller = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    long n = 0;
                    for (int t = 0; t < 4; t++) {
                        String tenant = (type == RecordType.TURN ? "bench-t" : "bench-d") + t;
                        n += store.count(tenant, type == null ? Set.of(RecordType.INVARIANT, RecordType.LORE) : Set.of(type));
                    }
                    long now = System.nanoTime();
                    if (n > 0) {
                        first.compareAndSet(0, now);
                    }
                    if (n >= expected) {
                        last.compareAndSet(0, now);
                        return;
                    }
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    // index not created yet
                }
            }
        });
        poller.start();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(EngramJob.flinkConfiguration(p, config));
        new EngramPipeline(config).build(env, EngramPipeline.kafkaSource(config), EngramPipeline.sinks(config));
        env.execute(group);
        poller.join(30_000);
        poller.interrupt();
        if (last.get() == 0) {
            throw new IllegalStateException(group + ": not every record became searchable");
        }
        return expected / ((last.get() - first.get()) / 1e9);
    }

    private static double embedderAlone(OnnxEmbedder embedder, List<String> texts) {
        embedder.embedDocuments(texts.subList(0, Math.min(64, texts.size()))); // warm-up
        long t0 = System.nanoTime();
        for (int i = 0; i < texts.size(); i += 32) {
            embedder.embedDocuments(texts.subList(i, Math.min(i + 32, texts.size())));
        }
        return texts.size() / ((System.nanoTime() - t0) / 1e9);
    }

    private static boolean visible(OpenSearchMemoryStore store, String tenant) {
        try {
            return !store.find(tenant, Map.of(), Set.of(RecordType.MEMORY), 10, null, true).isEmpty();
        } catch (RuntimeException e) {
            return false; // the job has not created the index yet
        }
    }

    /** Produce-to-searchable latency of gateway memories at a steady rate, on an unbounded pipeline. */
    private void freshness(PrintWriter out, Properties base, OpenSearchMemoryStore store, String kafka) throws Exception {
        Properties p = new Properties();
        p.putAll(base);
        p.setProperty("kafka.group", "bench-freshness");
        p.setProperty("kafka.bounded", "false");
        p.setProperty("parallelism", "1");
        PipelineConfig config = PipelineConfig.fromProperties(p);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(EngramJob.flinkConfiguration(p, config));
        new EngramPipeline(config).build(env, EngramPipeline.kafkaSource(config), EngramPipeline.sinks(config));
        JobClient job = env.executeAsync("bench-freshness");
        String tenant = "bench-fresh";
        Map<String, Long> producedAt = new HashMap<>();
        Map<String, Long> visibleAt = new HashMap<>();
        int total = rate * seconds;
        try (EngramProducer producer = new EngramProducer(kafka)) {
            // warm the job up (model load, index) before measuring
            producer.send(Payload.memory(tenant, "warm-up", "memory", "warm up", List.of(), 0, null, Instant.now()));
            producer.flush();
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (!visible(store, tenant) && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            long start = System.nanoTime();
            int sent = 0;
            while (visibleAt.size() < total && System.nanoTime() < start + (seconds + 60) * 1_000_000_000L) {
                long now = System.nanoTime();
                while (sent < total && now - start >= sent * 1_000_000_000L / rate) {
                    String id = "fresh-" + sent;
                    producedAt.put(RecordIds.memory(tenant, id), System.nanoTime());
                    producer.send(Payload.memory(tenant, id, "memory", "fresh memory number " + sent + " about topic "
                            + (sent % 17), List.of(), 0, null, Instant.now()));
                    producer.flush();
                    sent++;
                }
                for (MemoryRecord r : store.find(tenant, Map.of(), Set.of(RecordType.MEMORY), 10_000, null, true)) {
                    if (producedAt.containsKey(r.id())) {
                        visibleAt.putIfAbsent(r.id(), System.nanoTime());
                    }
                }
                Thread.sleep(50);
            }
        } finally {
            job.cancel().get();
        }
        double[] latencies = visibleAt.entrySet().stream()
                .mapToDouble(e -> (e.getValue() - producedAt.get(e.getKey())) / 1e6).sorted().toArray();
        out.printf(Locale.ROOT, "freshness: %d memories at %d/s, produce-to-searchable p50 %.0f ms, p99 %.0f ms, max %.0f ms%n",
                latencies.length, rate, latencies[latencies.length / 2],
                latencies[(int) Math.min(latencies.length - 1, Math.ceil(latencies.length * 0.99) - 1)],
                latencies[latencies.length - 1]);
        out.flush();
    }
}
