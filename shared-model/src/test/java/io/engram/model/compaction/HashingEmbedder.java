package io.engram.model.compaction;

import io.engram.model.embed.Embedder;
import io.engram.model.embed.Embedding;
import io.engram.model.embed.Vectors;
import io.engram.model.tokens.TokenCounter;
import java.util.List;
import java.util.Locale;

/** A deterministic bag-of-words embedder for unit tests: words hashed into 64 dimensions; tokens are words. */
final class HashingEmbedder implements Embedder {

    static final TokenCounter WORDS = new TokenCounter() {
        @Override
        public int count(CharSequence text) {
            String s = text.toString().strip();
            return s.isEmpty() ? 0 : s.split("\\s+").length;
        }

        @Override
        public String id() {
            return "words";
        }
    };

    @Override
    public List<Embedding> embedDocuments(List<String> texts) {
        return texts.stream().map(HashingEmbedder::embed).toList();
    }

    @Override
    public List<Embedding> embedQueries(List<String> texts) {
        return embedDocuments(texts);
    }

    private static Embedding embed(String text) {
        float[] v = new float[64];
        for (String word : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
            if (!word.isEmpty()) {
                v[Math.floorMod(word.hashCode(), 64)] += 1;
            }
        }
        return new Embedding(Vectors.normalized(v, 64), WORDS.count(text), false, 1, text.isBlank());
    }

    @Override
    public int dimension() {
        return 64;
    }

    @Override
    public String modelId() {
        return "hashing-64";
    }

    @Override
    public TokenCounter tokenCounter() {
        return WORDS;
    }

    @Override
    public void close() {
    }
}
