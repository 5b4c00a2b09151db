package io.engram.model.embed;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.tokens.TokenCounter;
import io.engram.model.tokens.TokenEstimate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CachingEmbedderTest {

    /** Counts what reaches the model; vectors encode the text length so results are checkable. */
    static final class CountingEmbedder implements Embedder {
        final List<String> seen = new ArrayList<>();

        @Override
        public List<Embedding> embedDocuments(List<String> texts) {
            seen.addAll(texts);
            return texts.stream().map(t -> new Embedding(new float[] {t.length(), 1}, t.length(), false, 1, t.isBlank())).toList();
        }

        @Override
        public List<Embedding> embedQueries(List<String> texts) {
            seen.addAll(texts.stream().map(t -> "Q:" + t).toList());
            return texts.stream().map(t -> new Embedding(new float[] {-t.length(), 1}, t.length(), false, 1, false)).toList();
        }

        @Override
        public int dimension() {
            return 2;
        }

        @Override
        public String modelId() {
            return "counting";
        }

        @Override
        public TokenCounter tokenCounter() {
            return TokenEstimate.INSTANCE;
        }

        @Override
        public void close() {
        }
    }

    @Test
    void identicalContentIsEmbeddedOnce() {
        CountingEmbedder model = new CountingEmbedder();
        CachingEmbedder cache = new CachingEmbedder(model, 100);
        EmbeddedBatch first = cache.embedDocumentBatch(List.of("a", "bb", "a"));
        assertThat(first.embeddings()).extracting(e -> e.vector()[0]).containsExactly(1f, 2f, 1f);
        assertThat(model.seen).containsExactly("a", "bb");
        assertThat(first.cacheHits()).isZero();
        assertThat(first.modelTexts()).isEqualTo(2);

        EmbeddedBatch second = cache.embedDocumentBatch(List.of("bb", "ccc"));
        assertThat(second.embeddings()).extracting(e -> e.vector()[0]).containsExactly(2f, 3f);
        assertThat(model.seen).containsExactly("a", "bb", "ccc");
        assertThat(second.cacheHits()).isEqualTo(1);
        assertThat(second.modelTexts()).isEqualTo(1);
        assertThat(cache.size()).isEqualTo(3);
        assertThat(cache.embedDocuments(List.of("ccc"))).extracting(e -> e.vector()[0]).containsExactly(3f);
    }

    @Test
    void queriesAndDocumentsAreCachedApart() {
        CountingEmbedder model = new CountingEmbedder();
        CachingEmbedder cache = new CachingEmbedder(model, 100);
        cache.embedDocuments(List.of("x"));
        Embedding q = cache.embedQuery("x");
        assertThat(q.vector()[0]).isEqualTo(-1f);
        assertThat(model.seen).containsExactly("x", "Q:x");
    }

    @Test
    void leastRecentlyUsedEntriesAreEvictedAtCapacity() {
        CountingEmbedder model = new CountingEmbedder();
        CachingEmbedder cache = new CachingEmbedder(model, 2);
        cache.embedDocuments(List.of("a", "b"));
        cache.embedDocuments(List.of("a"));      // a is now the most recent
        cache.embedDocuments(List.of("c"));      // evicts b
        assertThat(cache.size()).isEqualTo(2);
        cache.embedDocuments(List.of("a", "b"));
        assertThat(model.seen).containsExactly("a", "b", "c", "b");
    }

    @Test
    void sha256HexMatchesAnIndependentImplementation() {
        // python3 -c "import hashlib; print(hashlib.sha256('hello'.encode()).hexdigest())"
        assertThat(CachingEmbedder.sha256Hex("hello"))
                .isEqualTo("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
    }
}
