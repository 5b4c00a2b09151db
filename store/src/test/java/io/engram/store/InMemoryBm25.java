package io.engram.store;

import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.MemoryReader.ScoredRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * BM25 for {@link InMemoryMemoryStore} over one tenant's records, with the tenant's own statistics and Lucene's
 * formula and defaults (k1 1.2, b 0.75). Words are lower-cased runs of letters and digits without English stop
 * words (Lucene's list, which OpenSearch's {@code english} analyzer drops), not stemmed: on unstemmed words it finds
 * what OpenSearch finds; its order can differ where OpenSearch's shard-wide statistics weigh otherwise.
 */
final class InMemoryBm25 {

    private static final double K1 = 1.2;
    private static final double B = 0.75;
    private static final Set<String> STOP_WORDS = Set.of("a", "an", "and", "are", "as", "at", "be", "but", "by", "for",
            "if", "in", "into", "is", "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then",
            "there", "these", "they", "this", "to", "was", "will", "with");

    private final List<MemoryRecord> records;
    private final List<List<String>> words = new ArrayList<>();
    private final double meanLength;

    InMemoryBm25(List<MemoryRecord> records) {
        this.records = records;
        long total = 0;
        for (MemoryRecord r : records) {
            List<String> w = words(r.text());
            words.add(w);
            total += w.size();
        }
        this.meanLength = records.isEmpty() ? 1 : Math.max(1, (double) total / records.size());
    }

    static List<String> words(String text) {
        return Arrays.stream(text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+"))
                .filter(w -> !w.isEmpty() && !STOP_WORDS.contains(w)).toList();
    }

    /** The {@code k} best records of {@code types} (all when empty) sharing a word with the query, best first. */
    List<ScoredRecord> search(String query, int k, Set<RecordType> types) {
        List<String> terms = words(query).stream().distinct().toList();
        Map<String, Long> documentFrequency = new HashMap<>();
        for (String term : terms) {
            documentFrequency.put(term, words.stream().filter(w -> w.contains(term)).count());
        }
        List<ScoredRecord> hits = new ArrayList<>();
        for (int i = 0; i < records.size(); i++) {
            double score = score(words.get(i), terms, documentFrequency);
            if (score > 0 && (types.isEmpty() || types.contains(records.get(i).type()))) {
                hits.add(new ScoredRecord(records.get(i), score));
            }
        }
        hits.sort(Comparator.comparingDouble(ScoredRecord::score).reversed().thenComparing(h -> h.record().id()));
        return hits.subList(0, Math.min(k, hits.size()));
    }

    private double score(List<String> document, List<String> terms, Map<String, Long> documentFrequency) {
        double score = 0;
        for (String term : terms) {
            long tf = document.stream().filter(term::equals).count();
            if (tf > 0) {
                long df = documentFrequency.get(term);
                double idf = Math.log(1 + (records.size() - df + 0.5) / (df + 0.5));
                score += idf * tf / (tf + K1 * (1 - B + B * document.size() / meanLength));
            }
        }
        return score;
    }
}
