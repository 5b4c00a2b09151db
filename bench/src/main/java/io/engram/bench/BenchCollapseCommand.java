package io.engram.bench;

import io.engram.model.collapse.CanarySet;
import io.engram.model.collapse.CollapseConfig;
import io.engram.model.collapse.StoreShape;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.ServiceOptions;
import io.engram.store.MemoryStore;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RecordIds;
import io.engram.store.RetryPolicy;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The canary part of closing a cycle, which the JMH benchmark leaves out: minting 40 canaries and scoring them
 * with BM25 over the records the tenant's store shape holds ({@link CanarySet#ranks}), side by side with what
 * asking OpenSearch would cost (a refresh, then the 40 queries' top k in one multi-search, on a real node holding
 * the same records). Texts are 12–31 words from a skewed 5,000-word vocabulary.
 */
@Command(name = "collapse", mixinStandardHelpOptions = true,
        description = "Cost of canary minting and scoring at cycle close, at growing record counts, against asking OpenSearch.")
final class BenchCollapseCommand implements Callable<Integer> {

    private static final String TENANT = "bench-collapse";
    /** A vocabulary of 5,000 words drawn with a skew (a few common, most rare), as in real memories. */
    private static final int VOCABULARY = 5_000;

    @Spec
    CommandSpec spec;

    @Option(names = "--records", split = ",", paramLabel = "N", description = "Record counts (default: 10000,100000).")
    List<Integer> records = List.of(10_000, 100_000);

    @Option(names = "--repeats", description = "Measured closes per size (default: ${DEFAULT-VALUE}).")
    int repeats = 7;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        Random random = new Random(5);
        try (EmbeddedOpenSearch node = EmbeddedOpenSearch.start(ServiceOptions.ephemeral());
             OpenSearchMemoryStore store = new OpenSearchMemoryStore(node.httpUrl(), "engram-memories-bench-collapse",
                     RetryPolicy.DEFAULT)) {
            store.ensureIndex(EmbeddingModel.ALL_MINILM_L6_V2.id(), EmbeddingModel.DIMENSION);
            StoreShape shape = new StoreShape(2);
            int indexed = 0;
            out.println("records  mint_ms  shape_p50_ms  shape_max_ms  opensearch_p50_ms  opensearch/shape  hits");
            for (int target : records) {
                List<MemoryRecord> batch = new ArrayList<>();
                for (; indexed < target; indexed++) {
                    StringBuilder text = new StringBuilder();
                    for (int w = 12 + random.nextInt(20); w > 0; w--) {
                        double r = random.nextDouble();
                        text.append(w == 0 ? "" : " ").append("word").append((int) (VOCABULARY * r * r * r));
                    }
                    String id = RecordIds.memory(TENANT, "m" + indexed);
                    batch.add(MemoryRecord.of(id, TENANT, RecordType.MEMORY, text.toString(), Instant.EPOCH).tokens(20).build());
                    shape.upsert(StoreShape.Entry.of(id, RecordType.MEMORY, text.toString(), 0));
                    if (batch.size() == 2000) {
                        store.upsert(batch);
                        batch.clear();
                    }
                }
                store.upsert(batch);
                long t0 = System.nanoTime();
                CanarySet set = CanarySet.mint(shape, CollapseConfig.DEFAULT.canaryCount());
                double mintMs = (System.nanoTime() - t0) / 1e6;
                int k = CollapseConfig.DEFAULT.k();
                double[] shapeMs = new double[repeats];
                double[] openSearchMs = new double[repeats];
                int hits = 0;
                for (int r = -2; r < repeats; r++) { // two warm-up closes
                    long s = System.nanoTime();
                    int[] ranks = set.ranks(shape, k);
                    long m = System.nanoTime();
                    store.refresh(); // what asking OpenSearch needs first: the cycle's writes made searchable
                    MemoryStore.ReadBatch reads = store.reads(TENANT);
                    set.canaries().forEach(c -> reads.bm25(c.query(), k, StoreShape.LEARNING_TYPES));
                    reads.run();
                    if (r >= 0) {
                        shapeMs[r] = (m - s) / 1e6;
                        openSearchMs[r] = (System.nanoTime() - m) / 1e6;
                        hits = (int) Arrays.stream(ranks).filter(x -> x >= 0).count();
                    }
                }
                Arrays.sort(shapeMs);
                Arrays.sort(openSearchMs);
                out.printf(Locale.ROOT, "%7d  %7.2f  %12.2f  %12.2f  %17.1f  %16.1f  %d/%d%n", target, mintMs,
                        shapeMs[repeats / 2], shapeMs[repeats - 1], openSearchMs[repeats / 2],
                        openSearchMs[repeats / 2] / shapeMs[repeats / 2], hits, set.canaries().size());
                out.flush();
            }
        }
        return 0;
    }
}
