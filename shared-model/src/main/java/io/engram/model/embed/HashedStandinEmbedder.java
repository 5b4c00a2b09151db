package io.engram.model.embed;

import io.engram.model.tokens.TokenCounter;
import io.engram.model.tokens.TokenEstimate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A deterministic stand-in for the embedding model, for benchmarks that measure everything but the model: each
 * lower-cased word and each of its character trigrams is hashed (FNV-1a) to one of the vector's components with
 * a sign, and the sum is scaled to unit length. Texts sharing words share components, so similar texts land
 * closer than unrelated ones, at a few microseconds a text instead of the model's milliseconds. It carries no
 * meaning beyond shared spelling: never a model for real use. Tokens are counted by {@link TokenEstimate}.
 */
public final class HashedStandinEmbedder implements Embedder {

    /** The name configuration and the index record ({@code embed.model=hashed-standin}). */
    public static final String ID = "hashed-standin";
    private static final float WORD_WEIGHT = 1.0f;
    private static final float TRIGRAM_WEIGHT = 0.5f;

    private final int dimension;

    public HashedStandinEmbedder(int dimension) {
        if (dimension < 2) {
            throw new IllegalArgumentException("dimension must be at least 2: " + dimension);
        }
        this.dimension = dimension;
    }

    @Override
    public List<Embedding> embedDocuments(List<String> texts) {
        List<Embedding> out = new ArrayList<>(texts.size());
        for (String text : texts) {
            out.add(embed(text));
        }
        return out;
    }

    @Override
    public List<Embedding> embedQueries(List<String> texts) {
        return embedDocuments(texts);
    }

    private Embedding embed(String text) {
        float[] sum = new float[dimension];
        String lower = text.toLowerCase(Locale.ROOT);
        int start = -1;
        for (int i = 0; i <= lower.length(); i++) {
            boolean wordChar = i < lower.length() && Character.isLetterOrDigit(lower.charAt(i));
            if (wordChar && start < 0) {
                start = i;
            } else if (!wordChar && start >= 0) {
                addWord(sum, "^" + lower.substring(start, i) + "$");
                start = -1;
            }
        }
        boolean blank = text.isBlank();
        float[] unit = Vectors.normalized(sum, dimension);
        if (Vectors.dot(unit, unit) == 0) { // no word at all: a fixed unit vector, as a model embeds no content
            unit[0] = 1f;
        }
        return new Embedding(unit, TokenEstimate.of(text), false, 1, blank);
    }

    /** The word (marked at both ends) and its character trigrams. */
    private void addWord(float[] sum, String marked) {
        add(sum, marked, 0, marked.length(), WORD_WEIGHT);
        for (int i = 0; i + 3 <= marked.length(); i++) {
            add(sum, marked, i, i + 3, TRIGRAM_WEIGHT);
        }
    }

    private void add(float[] sum, String s, int from, int to, float weight) {
        long hash = 0xcbf29ce484222325L; // FNV-1a, 64 bits: the same on every JVM, unlike a seeded hash
        for (int i = from; i < to; i++) {
            hash ^= s.charAt(i);
            hash *= 0x100000001b3L;
        }
        int component = (int) Long.remainderUnsigned(hash >>> 1, dimension);
        sum[component] += (hash & 1) == 0 ? weight : -weight;
    }

    @Override
    public int dimension() {
        return dimension;
    }

    @Override
    public String modelId() {
        return ID + "/" + dimension;
    }

    @Override
    public TokenCounter tokenCounter() {
        return TokenEstimate.INSTANCE;
    }

    @Override
    public void close() {
        // nothing held
    }
}
