package io.engram.bench;

import io.engram.jobs.collapse.CanaryScorer;
import io.engram.model.collapse.CanarySet;
import io.engram.model.collapse.CollapseConfig;
import io.engram.model.collapse.StoreShape;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.ServiceOptions;
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
 * The canary part of closing a cycle, which the JMH benchmark leaves out: minting and scoring 40 canaries
 * with BM25 against a real OpenSearch index holding the tenant's records (refresh included). Texts are 12–31
 * words from a skewed 5,000-word vocabulary.
 */
@Command(name = "collapse", mixinStandardHelpOptions = true,
        description = "Cost of canary minting and scoring at cycle close, at growing record counts.")
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
            out.println("records  mint_ms  score_p50_ms  score_max_ms  hits");
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
                double[] scoreMs = new double[repeats];
                int hits = 0;
                for (int r = -2; r < repeats; r++) { // two warm-up closes
                    long s = System.nanoTime();
                    store.refresh(); // what a close after writes costs: the detector refreshes when it saw writes
                    int[] ranks = CanaryScorer.ranks(store, TENANT, set, shape, CollapseConfig.DEFAULT.k());
                    if (r >= 0) {
                        scoreMs[r] = (System.nanoTime() - s) / 1e6;
                        hits = (int) Arrays.stream(ranks).filter(x -> x >= 0).count();
                    }
                }
                Arrays.sort(scoreMs);
                out.printf(Locale.ROOT, "%7d  %7.2f  %12.1f  %12.1f  %d/%d%n", target, mintMs, scoreMs[repeats / 2],
                        scoreMs[repeats - 1], hits, set.canaries().size());
                out.flush();
            }
        }
        return 0;
    }
}
