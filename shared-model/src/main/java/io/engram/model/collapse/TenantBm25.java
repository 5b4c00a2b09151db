package io.engram.model.collapse;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * BM25 of canary queries against a tenant's learning records with that tenant's own statistics (docs/contracts.md
 * §D.5: "a BM25 query against the tenant's records"), over the records as the tenant's {@link StoreShape} holds
 * them: exactly the writes OpenSearch acknowledged up to the cycle's close, so a cycle closed again after a
 * restore ranks against the same records, not against what OpenSearch received since. OpenSearch's own BM25
 * would also take document frequencies and lengths from the whole shard, which tenants share. Lucene's formula
 * and defaults: {@code score = Σ_t idf(t) · tf / (tf + k1 · (1 − b + b · dl / avgdl))},
 * {@code idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5))}, k1 = 1.2, b = 0.75; N, df and the mean length are the
 * tenant's, lengths count {@link #tokens}. Equal scores rank by id, so a ranking depends on the records only.
 * An instance ranks on one thread (it reuses its score buffer).
 */
public final class TenantBm25 {

    public static final double K1 = 1.2;
    public static final double B = 0.75;

    /** The records holding one term: positions in {@link #records} and the term's count in each. */
    private static final class Postings {
        int size;
        int[] records = new int[4];
        int[] counts = new int[4];

        void add(int record, int count) {
            if (size == records.length) {
                records = Arrays.copyOf(records, size * 2);
                counts = Arrays.copyOf(counts, size * 2);
            }
            records[size] = record;
            counts[size++] = count;
        }
    }

    private final List<StoreShape.Entry> records;
    /** Per record: BM25's length normalisation {@code k1 · (1 − b + b · dl / avgdl)}. */
    private final double[] norms;
    private final long documents;
    /** Term (FNV-1a-64) → the records holding it: only the terms of the queries it was made for. */
    private final Map<Long, Postings> postings;
    /** The scores of the query being ranked, by record position (reused). */
    private final double[] scores;

    private TenantBm25(List<StoreShape.Entry> records, long documents, double meanLength, Map<Long, Postings> postings) {
        this.records = records;
        this.documents = documents;
        this.postings = postings;
        this.norms = new double[records.size()];
        for (int r = 0; r < norms.length; r++) {
            norms[r] = K1 * (1 - B + B * records.get(r).length() / Math.max(meanLength, 1e-9));
        }
        this.scores = new double[records.size()];
    }

    /** The tokens of a text: lower-cased runs of letters and digits (what the canary queries are made of). */
    public static List<String> tokens(String text) {
        List<String> out = new ArrayList<>();
        for (String raw : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
            if (!raw.isEmpty()) {
                out.add(raw);
            }
        }
        return out;
    }

    /** Indexes the shape's records for the terms of {@code queries}, in one pass over the records. */
    public static TenantBm25 over(StoreShape shape, Collection<String> queries) {
        Map<Long, Postings> postings = new HashMap<>();
        queries.forEach(q -> termsOf(q).forEach(t -> postings.put(t, new Postings())));
        List<StoreShape.Entry> records = new ArrayList<>();
        for (StoreShape.Entry e : shape.inSampleOrder()) {
            if (!e.termsKnown()) {
                continue;
            }
            boolean holdsATerm = false;
            for (int i = 0; i < e.termHashes().length; i++) {
                Postings holders = postings.get(e.termHashes()[i]);
                if (holders != null) {
                    holders.add(records.size(), e.termCounts()[i]);
                    holdsATerm = true;
                }
            }
            if (holdsATerm) {
                records.add(e);
            }
        }
        return new TenantBm25(records, shape.size(), shape.meanLength(), postings);
    }

    /** The {@code k} best records for {@code query}, best first; records without a query term are left out. */
    public List<StoreShape.Entry> topK(String query, int k) {
        score(query);
        int[] best = new int[k]; // positions, best first: one comparison turns most records away
        int n = 0;
        for (int r = 0; r < scores.length; r++) {
            if (scores[r] <= 0 || (n == k && !ranksBefore(r, best[k - 1]))) {
                continue;
            }
            int i = n < k ? n++ : k - 1;
            for (; i > 0 && ranksBefore(r, best[i - 1]); i--) {
                best[i] = best[i - 1];
            }
            best[i] = r;
        }
        List<StoreShape.Entry> top = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            top.add(records.get(best[i]));
        }
        return top;
    }

    /** Higher score first, then smaller id. */
    private boolean ranksBefore(int a, int b) {
        return scores[a] > scores[b] || (scores[a] == scores[b] && records.get(a).id().compareTo(records.get(b).id()) < 0);
    }

    /** The score of one record (0 when it holds no query term). */
    double score(String query, String id) {
        score(query);
        for (int r = 0; r < scores.length; r++) {
            if (records.get(r).id().equals(id)) {
                return scores[r];
            }
        }
        return 0;
    }

    /** Fills {@link #scores} with each indexed record's score for the query. */
    private void score(String query) {
        Arrays.fill(scores, 0);
        for (long term : termsOf(query)) {
            Postings holders = postings.get(term);
            if (holders == null) {
                continue;
            }
            double idf = Math.log(1 + (documents - holders.size + 0.5) / (holders.size + 0.5));
            for (int i = 0; i < holders.size; i++) {
                int r = holders.records[i];
                scores[r] += idf * holders.counts[i] / (holders.counts[i] + norms[r]);
            }
        }
    }

    /** The distinct words of a query a record's terms can hold, by FNV-1a-64. */
    private static Set<Long> termsOf(String query) {
        Set<Long> terms = new LinkedHashSet<>();
        for (String token : tokens(query)) {
            if (token.length() >= CanarySet.MIN_QUERY_TERM_LENGTH) {
                terms.add(NormHash.fnv1a64(token));
            }
        }
        return terms;
    }
}
