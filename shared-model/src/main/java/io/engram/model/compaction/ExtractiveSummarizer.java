package io.engram.model.compaction;

import io.engram.model.embed.Embedder;
import io.engram.model.embed.Embedding;
import io.engram.model.embed.Vectors;
import io.engram.model.tokens.TokenCounter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Extractive summaries (docs/contracts.md §C.4), scored by {@link PreservationScore}.
 *
 * <p>Turn level (the baseline): embed the turns, take their centroid, rank turns by cosine to it, keep
 * ⌈n·density⌉ (0.4, then 0.25 on the aggressive retry), restore chronological order. Sentence level: the
 * units are the sentences of the turns; each step adds the sentence that brings the token-weighted sum of the
 * chosen sentences' vectors closest (by cosine) to the centroid, until a token budget is spent, then the
 * sentences go back in order. A sentence that repeats what is chosen moves the sum little, so the budget goes
 * to sentences that cover different turns (redundancy control without a separate penalty term, measured
 * better than maximal marginal relevance on LoCoMo: docs/benchmarks.md). A summary is accepted only when it
 * is shorter than its sources.
 */
public final class ExtractiveSummarizer {

    private static final Pattern SENTENCE_END = Pattern.compile("(?<=[.!?。！？])\\s+");

    /** Turns or sentences. */
    public enum Granularity { TURN, SENTENCE }

    /**
     * @param density           share of units (turn level) or of source tokens (sentence level) to keep
     * @param aggressiveDensity the retry when the first summary is not shorter than its sources
     * @param granularity       turn or sentence units
     */
    public record Options(double density, double aggressiveDensity, Granularity granularity) {
        public static final Options TURNS = new Options(0.4, 0.25, Granularity.TURN);
        public static final Options SENTENCES = new Options(0.4, 0.25, Granularity.SENTENCE);
    }

    /** An accepted summary with its preservation score. */
    public record Summary(String text, float[] embedding, int sourceTokens, int summaryTokens, int unitsKept,
                          double density, PreservationScore score) {

        public double tokenReduction() {
            return sourceTokens == 0 ? 0 : 1 - summaryTokens / (double) sourceTokens;
        }
    }

    private final Embedder embedder;
    private final TokenCounter tokens;
    private final Options options;

    public ExtractiveSummarizer(Embedder embedder, Options options) {
        this.embedder = embedder;
        this.tokens = embedder.tokenCounter();
        this.options = options;
    }

    /** The summary of the texts (chronological), or empty when none is shorter than its sources. */
    public Optional<Summary> summarize(List<String> sources) {
        List<float[]> sourceVectors = vectors(sources);
        int sourceTokens = sources.stream().mapToInt(tokens::count).sum();
        Sentences sentences = options.granularity() == Granularity.SENTENCE ? sentences(sources) : null;
        for (double density : new double[] {options.density(), options.aggressiveDensity()}) {
            Optional<Summary> s = sentences == null
                    ? byTurns(sources, sourceVectors, sourceTokens, density)
                    : bySentences(sentences, sourceVectors, sourceTokens, (int) Math.floor(density * sourceTokens), density);
            if (s.isPresent()) {
                return s;
            }
        }
        return Optional.empty();
    }

    /** Sentence-level summary within an explicit token budget (to compare variants at equal length). */
    public Optional<Summary> summarizeWithin(List<String> sources, int tokenBudget) {
        List<float[]> sourceVectors = vectors(sources);
        int sourceTokens = sources.stream().mapToInt(tokens::count).sum();
        return bySentences(sentences(sources), sourceVectors, sourceTokens, tokenBudget, tokenBudget / (double) sourceTokens);
    }

    /** The sentences of the sources with their vectors and token counts: computed once per summary. */
    private record Sentences(List<String> texts, List<float[]> vectors, int[] tokens) {
    }

    private Sentences sentences(List<String> sources) {
        List<String> texts = new ArrayList<>();
        for (String source : sources) {
            for (String sentence : SENTENCE_END.split(source.strip())) {
                if (!sentence.isBlank()) {
                    texts.add(sentence.strip());
                }
            }
        }
        return new Sentences(texts, vectors(texts), texts.stream().mapToInt(tokens::count).toArray());
    }

    private Optional<Summary> byTurns(List<String> sources, List<float[]> vectors, int sourceTokens, double density) {
        float[] centroid = mean(vectors);
        int keep = (int) Math.ceil(sources.size() * density);
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < sources.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparingDouble((Integer i) -> -Vectors.cosine(vectors.get(i), centroid))
                .thenComparingInt(i -> i));
        List<Integer> kept = new ArrayList<>(order.subList(0, keep));
        kept.sort(Integer::compare);
        List<String> parts = kept.stream().map(sources::get).toList();
        return accept(parts, vectors, sourceTokens, density);
    }

    private Optional<Summary> bySentences(Sentences units, List<float[]> sourceVectors, int sourceTokens,
                                          int budget, double density) {
        List<String> sentences = units.texts();
        List<float[]> vectors = units.vectors();
        int[] sentenceTokens = units.tokens();
        float[] centroid = mean(sourceVectors);
        boolean[] chosen = new boolean[sentences.size()];
        List<Integer> picked = new ArrayList<>();
        float[] sum = new float[centroid.length];
        float[] candidate = new float[centroid.length];
        int used = 0;
        while (true) {
            int best = -1;
            double bestScore = Double.NEGATIVE_INFINITY;
            for (int j = 0; j < sentences.size(); j++) {
                if (chosen[j] || used + sentenceTokens[j] > budget) {
                    continue;
                }
                float[] v = vectors.get(j);
                for (int d = 0; d < candidate.length; d++) {
                    candidate[d] = sum[d] + v[d] * sentenceTokens[j];
                }
                double score = Vectors.cosine(candidate, centroid);
                if (score > bestScore) {
                    bestScore = score;
                    best = j;
                }
            }
            if (best < 0) {
                break;
            }
            chosen[best] = true;
            picked.add(best);
            float[] v = vectors.get(best);
            for (int d = 0; d < sum.length; d++) {
                sum[d] += v[d] * sentenceTokens[best];
            }
            used += sentenceTokens[best];
        }
        if (picked.isEmpty()) {
            return Optional.empty();
        }
        picked.sort(Integer::compare);
        return accept(picked.stream().map(sentences::get).toList(), sourceVectors, sourceTokens, density);
    }

    private Optional<Summary> accept(List<String> parts, List<float[]> sourceVectors, int sourceTokens, double density) {
        String text = String.join("\n", parts);
        int summaryTokens = tokens.count(text);
        if (summaryTokens >= sourceTokens) {
            return Optional.empty();
        }
        float[] embedding = embedder.embedDocument(text).vector();
        return Optional.of(new Summary(text, embedding, sourceTokens, summaryTokens, parts.size(), density,
                PreservationScore.of(embedding, sourceVectors)));
    }

    private List<float[]> vectors(List<String> texts) {
        return embedder.embedDocuments(texts).stream().map(Embedding::vector).toList();
    }

    private static float[] mean(List<float[]> vectors) {
        float[] m = new float[vectors.get(0).length];
        for (float[] v : vectors) {
            for (int i = 0; i < m.length; i++) {
                m[i] += v[i] / vectors.size();
            }
        }
        return m;
    }
}
