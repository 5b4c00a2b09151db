package io.engram.model.collapse;

import io.engram.model.retrieval.RecordType;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A tenant's store shape (docs/contracts.md §D.2), maintained on every write instead of by rescanning the store: counts
 * per learning type, the multiset of normHashes (for the distinct-content ratio), the generation histogram and a
 * deterministic sample of at most {@value #SAMPLE_LIMIT} entries for the mean bigram diversity. The sample is
 * the entries with the smallest FNV-1a-64 of their record id, so it does not depend on write order and an
 * upsert or delete moves at most one entry in or out of it. Only the learning types are counted.
 */
public final class StoreShape {

    public static final Set<RecordType> LEARNING_TYPES =
            Collections.unmodifiableSet(EnumSet.of(RecordType.SUMMARY, RecordType.MEMORY, RecordType.LESSON,
                    RecordType.KNOWLEDGE));
    public static final int SAMPLE_LIMIT = 2000;

    /**
     * What the shape keeps of one record: no text, only what the metrics, canary minting and canary scoring
     * need ({@code length}: its {@link TenantBm25#tokens} count).
     */
    public record Entry(String id, RecordType type, long contentHash, int generation, double bigramDiversity,
                        String canaryQuery, int length, long sampleKey) {

        public static Entry of(String id, RecordType type, String text, int generation) {
            return new Entry(id, type, NormHash.value(text), generation, BigramDiversity.of(text),
                    CanarySet.queryOf(text), TenantBm25.tokens(text).size(), NormHash.fnv1a64(id));
        }
    }

    /** The shape's metrics at one moment. */
    public record Metrics(long total, Map<RecordType, Long> byType, double distinctContentRatio,
                          double meanBigramDiversity, long overGenerationCount) {
    }

    static final Comparator<Entry> SAMPLE_ORDER =
            Comparator.comparing(Entry::sampleKey, Long::compareUnsigned).thenComparing(Entry::id);

    private final int maxGeneration;
    private final Map<String, Entry> entries = new HashMap<>();
    private final Map<Long, Integer> hashCounts = new HashMap<>();
    private final Map<Integer, Long> generations = new HashMap<>();
    private final EnumMap<RecordType, Long> byType = new EnumMap<>(RecordType.class);
    private final TreeSet<Entry> ordered = new TreeSet<>(SAMPLE_ORDER);
    private long overGeneration;
    private long totalLength;

    /** @param maxGeneration records above it count in {@code over_generation_count} */
    public StoreShape(int maxGeneration) {
        this.maxGeneration = maxGeneration;
    }

    /** Inserts or replaces the record; a record of a non-learning type is ignored. */
    public void upsert(Entry entry) {
        if (!LEARNING_TYPES.contains(entry.type())) {
            return;
        }
        Entry previous = entries.put(entry.id(), entry);
        if (previous != null) {
            forget(previous);
        }
        ordered.add(entry);
        hashCounts.merge(entry.contentHash(), 1, Integer::sum);
        generations.merge(entry.generation(), 1L, Long::sum);
        byType.merge(entry.type(), 1L, Long::sum);
        totalLength += entry.length();
        if (entry.generation() > maxGeneration) {
            overGeneration++;
        }
    }

    /** Removes the record if present. Returns whether it was. */
    public boolean delete(String id) {
        Entry previous = entries.remove(id);
        if (previous == null) {
            return false;
        }
        forget(previous);
        return true;
    }

    private void forget(Entry e) {
        ordered.remove(e);
        hashCounts.compute(e.contentHash(), (h, n) -> n == 1 ? null : n - 1);
        generations.compute(e.generation(), (g, n) -> n == 1 ? null : n - 1);
        byType.compute(e.type(), (t, n) -> n == 1 ? null : n - 1);
        totalLength -= e.length();
        if (e.generation() > maxGeneration) {
            overGeneration--;
        }
    }

    public Metrics metrics() {
        long total = entries.size();
        double distinct = total == 0 ? 1.0 : hashCounts.size() / (double) total;
        double sum = 0;
        int n = 0;
        for (Iterator<Entry> it = ordered.iterator(); it.hasNext() && n < SAMPLE_LIMIT; n++) {
            sum += it.next().bigramDiversity();
        }
        return new Metrics(total, new EnumMap<>(byType), distinct, n == 0 ? 1.0 : sum / n, overGeneration);
    }

    public int size() {
        return entries.size();
    }

    /** The mean {@link TenantBm25#tokens} count of the records (0 when empty): BM25's average length. */
    public double meanLength() {
        return entries.isEmpty() ? 0 : totalLength / (double) entries.size();
    }

    public Entry get(String id) {
        return entries.get(id);
    }

    /** The ids of the bigram-diversity sample, in sample order. */
    public List<String> sampleIds() {
        List<String> ids = new ArrayList<>();
        for (Iterator<Entry> it = ordered.iterator(); it.hasNext() && ids.size() < SAMPLE_LIMIT; ) {
            ids.add(it.next().id());
        }
        return ids;
    }

    /** The generation histogram: generation → number of records. */
    public Map<Integer, Long> generationHistogram() {
        return Map.copyOf(generations);
    }

    /** The normHash multiset: hash → number of records with it. */
    public Map<Long, Integer> contentHashCounts() {
        return Map.copyOf(hashCounts);
    }

    /** All entries in sample order (deterministic, independent of write order). */
    Iterable<Entry> inSampleOrder() {
        return ordered;
    }

    /** Writes the entries; the aggregates are rebuilt on read. */
    public void writeTo(DataOutput out) throws IOException {
        out.writeInt(maxGeneration);
        out.writeInt(entries.size());
        for (Entry e : ordered) {
            out.writeUTF(e.id());
            out.writeByte(e.type().ordinal());
            out.writeLong(e.contentHash());
            out.writeInt(e.generation());
            out.writeDouble(e.bigramDiversity());
            out.writeUTF(e.canaryQuery());
            out.writeInt(e.length());
        }
    }

    public static StoreShape readFrom(DataInput in) throws IOException {
        StoreShape shape = new StoreShape(in.readInt());
        int n = in.readInt();
        for (int i = 0; i < n; i++) {
            String id = in.readUTF();
            shape.upsert(new Entry(id, RecordType.values()[in.readByte()], in.readLong(), in.readInt(),
                    in.readDouble(), in.readUTF(), in.readInt(), NormHash.fnv1a64(id)));
        }
        return shape;
    }
}
