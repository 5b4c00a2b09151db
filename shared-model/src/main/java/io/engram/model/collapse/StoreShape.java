package io.engram.model.collapse;

import io.engram.model.retrieval.RecordType;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
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
     * need. {@code length} is its {@link TenantBm25#tokens} count; {@code termHashes} (sorted) and
     * {@code termCounts} are its words of {@value CanarySet#MIN_QUERY_TERM_LENGTH} letters or more, the only
     * ones a canary query holds, by FNV-1a-64 with their counts; {@code sourceRefHashes} (sorted) are the record
     * ids its source refs name. Entries restored from the first state format have no terms ({@code null}).
     */
    public record Entry(String id, RecordType type, long contentHash, int generation, double bigramDiversity,
                        String canaryQuery, int length, long sampleKey, long[] termHashes, int[] termCounts,
                        long[] sourceRefHashes) {

        public static Entry of(String id, RecordType type, String text, int generation) {
            return of(id, type, text, generation, List.of());
        }

        /** @param sourceRefIds the record ids (not the raw refs) the record's source refs name */
        public static Entry of(String id, RecordType type, String text, int generation, Collection<String> sourceRefIds) {
            List<String> tokens = TenantBm25.tokens(text);
            TreeMap<Long, Integer> counts = new TreeMap<>();
            for (String token : tokens) {
                if (token.length() >= CanarySet.MIN_QUERY_TERM_LENGTH) {
                    counts.merge(NormHash.fnv1a64(token), 1, Integer::sum);
                }
            }
            long[] termHashes = new long[counts.size()];
            int[] termCounts = new int[counts.size()];
            int i = 0;
            for (Map.Entry<Long, Integer> c : counts.entrySet()) {
                termHashes[i] = c.getKey();
                termCounts[i++] = c.getValue();
            }
            long[] refs = sourceRefIds.stream().mapToLong(NormHash::fnv1a64).distinct().sorted().toArray();
            return new Entry(id, type, NormHash.value(text), generation, BigramDiversity.of(text),
                    CanarySet.queryOf(text), tokens.size(), NormHash.fnv1a64(id), termHashes, termCounts, refs);
        }

        /** The same entry with no words and no source refs: a record whose text is not to be had any more. */
        public Entry withoutWords() {
            return new Entry(id, type, contentHash, generation, bigramDiversity, canaryQuery, length, sampleKey,
                    new long[0], new int[0], new long[0]);
        }

        /** Whether the record's source refs name the record {@code id}. */
        boolean refersTo(String id) {
            return Arrays.binarySearch(sourceRefHashes, NormHash.fnv1a64(id)) >= 0;
        }

        boolean termsKnown() {
            return termHashes != null;
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
    /** Entries restored from the first state format, without words: so that asking costs nothing once there are none. */
    private int withoutTerms;

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
        withoutTerms += entry.termsKnown() ? 0 : 1;
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
        withoutTerms -= e.termsKnown() ? 0 : 1;
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

    /** The ids of the entries restored without their terms (from the first state format). */
    public List<String> idsWithoutTerms() {
        if (withoutTerms == 0) {
            return List.of();
        }
        return entries.values().stream().filter(e -> !e.termsKnown()).map(Entry::id).sorted().toList();
    }

    /**
     * Writes the entries; the aggregates are rebuilt on read. The first format began with {@code maxGeneration}
     * (never negative); the current one begins with {@link #FORMAT_WITH_TERMS}.
     */
    public void writeTo(DataOutput out) throws IOException {
        out.writeInt(FORMAT_WITH_TERMS);
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
            writeTerms(out, e);
            out.writeInt(e.sourceRefHashes().length);
            for (long ref : e.sourceRefHashes()) {
                out.writeLong(ref);
            }
        }
    }

    private static void writeTerms(DataOutput out, Entry e) throws IOException {
        if (!e.termsKnown()) {
            out.writeInt(-1);
            return;
        }
        out.writeInt(e.termHashes().length);
        for (int i = 0; i < e.termHashes().length; i++) {
            out.writeLong(e.termHashes()[i]);
            out.writeInt(e.termCounts()[i]);
        }
    }

    static final int FORMAT_WITH_TERMS = -2;

    public static StoreShape readFrom(DataInput in) throws IOException {
        int first = in.readInt();
        boolean withTerms = first == FORMAT_WITH_TERMS;
        StoreShape shape = new StoreShape(withTerms ? in.readInt() : first);
        int n = in.readInt();
        for (int i = 0; i < n; i++) {
            String id = in.readUTF();
            RecordType type = RecordType.values()[in.readByte()];
            long contentHash = in.readLong();
            int generation = in.readInt();
            double bigramDiversity = in.readDouble();
            String canaryQuery = in.readUTF();
            int length = in.readInt();
            long[] termHashes = null;
            int[] termCounts = null;
            long[] refs = new long[0];
            if (withTerms) {
                int terms = in.readInt();
                if (terms >= 0) {
                    termHashes = new long[terms];
                    termCounts = new int[terms];
                    for (int t = 0; t < terms; t++) {
                        termHashes[t] = in.readLong();
                        termCounts[t] = in.readInt();
                    }
                }
                refs = new long[in.readInt()];
                for (int r = 0; r < refs.length; r++) {
                    refs[r] = in.readLong();
                }
            }
            shape.upsert(new Entry(id, type, contentHash, generation, bigramDiversity, canaryQuery, length,
                    NormHash.fnv1a64(id), termHashes, termCounts, refs));
        }
        return shape;
    }
}
