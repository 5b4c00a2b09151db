package io.engram.bench;

import io.engram.model.embed.Embedding;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.retrieval.Retrieval;
import io.engram.store.MemoryWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * The read benchmark's records: sentences from a small vocabulary, embedded once; records reuse them with jittered
 * vectors, loaded as the gateway and the pipeline would have written them.
 */
final class BenchCorpus {

    final List<String> texts = new ArrayList<>();
    private final List<float[]> vectors = new ArrayList<>();
    private final Random random = new Random(11);
    private final Instant now;

    /** {@code size} sentences embedded by the read side's embedder; records are dated back from {@code now}. */
    BenchCorpus(Retrieval retrieval, int size, Instant now) {
        this.now = now;
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

    synchronized float[] jittered(int i) {
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

    /** Records {@code from} to {@code to} of {@code tenant}: 90 % memories, 10 % turns of 50 sessions. */
    void load(MemoryWriter store, String tenant, int from, int to) {
        List<MemoryRecord> batch = new ArrayList<>();
        for (int i = from; i < to; i++) {
            int c = i % texts.size();
            boolean turn = i % 10 == 0;
            batch.add(MemoryRecord.of(tenant + "-" + i, tenant, turn ? RecordType.TURN : RecordType.MEMORY,
                    texts.get(c), now.minusSeconds(i)).embedding(jittered(c))
                    .session(turn ? "s" + (i % 50) : null).user("u1")
                    .role(turn ? (i % 20 == 0 ? "user" : "assistant") : null).position(i / 10).tokens(16).build());
            if (batch.size() == 1_000) {
                store.upsert(batch);
                batch.clear();
            }
        }
        if (!batch.isEmpty()) {
            store.upsert(batch);
        }
    }

    /** Two agent documents' hard and soft rules ({@code perTier} each of tiers 1 and 2), as the partitioner writes them. */
    void loadRules(MemoryWriter store, String tenant, int perTier) {
        List<MemoryRecord> rules = new ArrayList<>();
        for (int i = 0; i < 2 * perTier; i++) {
            String doc = i % 2 == 0 ? "AGENTS.md" : "SOUL.md";
            rules.add(MemoryRecord.of(tenant + "-rule-" + i, tenant, RecordType.INVARIANT, "Always " + texts.get(i) + ".",
                    now).tier(i < perTier ? 1 : 2).embedding(jittered(i)).document("bench-agent", doc, 1L)
                    .position(i).tokens(12).build());
        }
        store.upsert(rules);
    }
}
