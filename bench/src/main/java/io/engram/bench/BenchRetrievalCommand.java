package io.engram.bench;

import io.engram.model.embed.Embedding;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.retrieval.ContextService;
import io.engram.retrieval.HybridRetriever;
import io.engram.retrieval.Retrieval;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.ServiceOptions;
import io.engram.store.OpenSearchMemoryStore;
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
 * Query latency of search and context assembly on the embedded OpenSearch node, for one tenant among 20, at
 * growing record counts; the query embedding is timed on its own too.
 */
@Command(name = "retrieval", mixinStandardHelpOptions = true,
        description = "Query latency p50/p95/p99 of search and context assembly at growing record counts.")
final class BenchRetrievalCommand implements Callable<Integer> {

    private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
    private static final String TENANT = "bench-tenant";
    private static final String INDEX = "engram-memories-bench";

    @Spec
    CommandSpec spec;

    @Option(names = "--records", split = ",", paramLabel = "N", description = "Record counts of the measured tenant (default: 10000,100000).")
    List<Integer> records = List.of(10_000, 100_000);

    @Option(names = "--other-tenants", paramLabel = "N", description = "Other tenants sharing the index (default: ${DEFAULT-VALUE}).")
    int otherTenants = 19;

    @Option(names = "--other-records", paramLabel = "N", description = "Records of each other tenant (default: ${DEFAULT-VALUE}).")
    int otherRecords = 1_000;

    @Option(names = "--queries", paramLabel = "N", description = "Measured queries per kind (default: ${DEFAULT-VALUE}).")
    int queries = 200;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try (EmbeddedOpenSearch node = EmbeddedOpenSearch.start(ServiceOptions.ephemeral());
             Retrieval retrieval = Retrieval.open(node.httpUrl(), INDEX, EmbeddingModel.ALL_MINILM_L6_V2)) {
            OpenSearchMemoryStore store = retrieval.store();
            store.ensureIndex(EmbeddingModel.ALL_MINILM_L6_V2.id(), retrieval.embedder().dimension());
            Corpus corpus = new Corpus(retrieval, 4_000);
            for (int t = 0; t < otherTenants; t++) {
                load(store, corpus, "other-" + t, 0, otherRecords);
            }
            load(store, corpus, TENANT, 0, 0);
            int loaded = 0;
            for (int target : records) {
                long start = System.nanoTime();
                load(store, corpus, TENANT, loaded, target);
                store.refresh();
                out.printf(Locale.ROOT, "%n%,d records for %s (+ %d tenants x %,d), loaded in %.0f s%n", target, TENANT,
                        otherTenants, otherRecords, (System.nanoTime() - start) / 1e9);
                loaded = target;
                measure(retrieval, corpus, target, out);
                out.flush();
            }
        }
        return 0;
    }

    /** Sentences from a small vocabulary, embedded once; records reuse them with jittered vectors. */
    private static final class Corpus {
        final List<String> texts = new ArrayList<>();
        final List<float[]> vectors = new ArrayList<>();
        final Random random = new Random(11);

        Corpus(Retrieval retrieval, int size) {
            String[] words = ("deploy key vault lunch noon friday cat miso hiking weekend painting lake sunrise "
                    + "support group thursday evening maven build tokenizer canary summary provenance budget recall "
                    + "tenant session compaction merge cluster window rule agent memory lesson knowledge dog walk "
                    + "morning coffee meeting release bug fix test pipeline kafka flink search vector").split(" ");
            for (int i = 0; i < size; i++) {
                StringBuilder b = new StringBuilder();
                for (int w = 0; w < 8 + random.nextInt(12); w++) {
                    b.append(w == 0 ? "" : " ").append(words[random.nextInt(words.length)]);
                }
                texts.add(b.toString());
            }
            for (Embedding e : retrieval.embedder().embedDocuments(texts)) {
                vectors.add(e.vector());
            }
        }

        float[] jittered(int i) {
            float[] base = vectors.get(i);
            float[] v = Arrays.copyOf(base, base.length);
            double norm = 0;
            for (int d = 0; d < v.length; d++) {
                v[d] += (float) (random.nextGaussian() * 0.02);
                norm += v[d] * v[d];
            }
            for (int d = 0; d < v.length; d++) {
                v[d] /= (float) Math.sqrt(norm);
            }
            return v;
        }
    }

    private static void load(OpenSearchMemoryStore store, Corpus corpus, String tenant, int from, int to) {
        List<MemoryRecord> batch = new ArrayList<>();
        for (int i = from; i < to; i++) {
            int c = i % corpus.texts.size();
            boolean turn = i % 10 == 0;
            batch.add(MemoryRecord.of(tenant + "-" + i, tenant, turn ? RecordType.TURN : RecordType.MEMORY,
                    corpus.texts.get(c), NOW.minusSeconds(i)).embedding(corpus.jittered(c))
                    .session(turn ? "s" + (i % 50) : null).user("u1")
                    .role(turn ? (i % 20 == 0 ? "user" : "assistant") : null).position(i).tokens(16).build());
            if (batch.size() == 1_000) {
                store.upsert(batch);
                batch.clear();
            }
        }
        if (!batch.isEmpty()) {
            store.upsert(batch);
        }
    }

    private void measure(Retrieval retrieval, Corpus corpus, int round, PrintWriter out) {
        Random random = new Random(5);
        long[] embed = new long[queries];
        long[] search = new long[queries];
        long[] context = new long[queries];
        for (int q = -20; q < queries; q++) {
            // fresh query texts (per query and per round) so the embedding cache does not hide the model's cost
            String query = corpus.texts.get(random.nextInt(corpus.texts.size())) + " " + q + " r" + round;
            long t0 = System.nanoTime();
            retrieval.embedder().embedQuery(query + " e");
            long t1 = System.nanoTime();
            retrieval.retriever().search(new HybridRetriever.Query(TENANT, query + " s", "s1", "u1",
                    ContextService.MEMORY_TYPES, 10, NOW));
            long t2 = System.nanoTime();
            retrieval.context().assemble(new ContextService.Request(TENANT, "s" + random.nextInt(50), "u1", query + " c",
                    2_000), NOW);
            long t3 = System.nanoTime();
            if (q >= 0) {
                embed[q] = t1 - t0;
                search[q] = t2 - t1;
                context[q] = t3 - t2;
            }
        }
        report(out, "query embedding", embed);
        report(out, "search (k=10, incl. embedding)", search);
        report(out, "context (2000 tokens, incl. embedding)", context);
    }

    private static void report(PrintWriter out, String what, long[] nanos) {
        out.printf(Locale.ROOT, "  %-40s %s%n", what, Latencies.ofNanos(what, nanos).summary());
    }
}
