package io.engram.model.collapse;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * BM25 of a canary query against a tenant's learning records with that tenant's own statistics (docs/contracts.md
 * §D.5: "a BM25 query against the tenant's records"). OpenSearch's BM25 takes document frequencies and
 * lengths from the whole shard, which tenants share, so its ranks move with other tenants' writes; here
 * {@code N}, {@code df(t)} and the mean length are the tenant's. Lucene's formula and defaults:
 * {@code score = Σ_t idf(t) · tf / (tf + k1 · (1 − b + b · dl / avgdl))},
 * {@code idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5))}, k1 = 1.2, b = 0.75; lengths count {@link #tokens}.
 * Equal scores rank by id, so a ranking depends on the records only.
 */
public final class TenantBm25 {

    public static final double K1 = 1.2;
    public static final double B = 0.75;

    /** A tenant's statistics: its learning records, their mean length in tokens, document frequency per term. */
    public record Stats(long documents, double meanLength, Map<String, Long> documentFrequency) {
    }

    /** A record to rank. */
    public record Candidate(String id, String text) {
    }

    private TenantBm25() {
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

    public static double score(Set<String> queryTerms, String text, Stats stats) {
        List<String> tokens = tokens(text);
        double norm = K1 * (1 - B + B * tokens.size() / Math.max(stats.meanLength(), 1e-9));
        double score = 0;
        for (String term : queryTerms) {
            long tf = tokens.stream().filter(term::equals).count();
            if (tf > 0) {
                long df = stats.documentFrequency().getOrDefault(term, 0L);
                double idf = Math.log(1 + (stats.documents() - df + 0.5) / (df + 0.5));
                score += idf * tf / (tf + norm);
            }
        }
        return score;
    }

    /** The ids of the {@code k} best candidates for {@code query}, best first; candidates without a query term are left out. */
    public static List<String> topK(String query, List<Candidate> candidates, Stats stats, int k) {
        Set<String> terms = new LinkedHashSet<>(tokens(query));
        record Scored(String id, double score) {
        }
        List<Scored> scored = new ArrayList<>();
        for (Candidate c : candidates) {
            double s = score(terms, c.text(), stats);
            if (s > 0) {
                scored.add(new Scored(c.id(), s));
            }
        }
        scored.sort(Comparator.comparingDouble(Scored::score).reversed().thenComparing(Scored::id));
        return scored.stream().limit(k).map(Scored::id).toList();
    }
}
