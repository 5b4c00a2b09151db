package io.engram.retrieval;

import io.engram.model.embed.CachingEmbedder;
import io.engram.model.embed.EmbeddingModel;
import io.engram.store.MemoryStore;
import io.engram.store.OpenSearchConnection;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;

/**
 * The read side wired once: store, cached query embedder, the hybrid retriever of searches, and the context service
 * (with a retriever of its own: {@link HybridRetriever.Options#FOR_CONTEXT}).
 */
public record Retrieval(MemoryStore store, CachingEmbedder embedder, HybridRetriever retriever,
                        ContextService context) implements AutoCloseable {

    /** The read side over an existing index, embedding queries with the model that made its vectors. */
    public static Retrieval open(OpenSearchConnection openSearch, String index) {
        MemoryStore store = new OpenSearchMemoryStore(openSearch, index, RetryPolicy.DEFAULT);
        try {
            return over(store, EmbeddingModel.ofId(store.embeddingModel()));
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /** The read side over one index whose vectors {@code model} makes, with the default retriever and context settings. */
    public static Retrieval open(String openSearchUrl, String index, EmbeddingModel model) {
        return over(new OpenSearchMemoryStore(openSearchUrl, index, RetryPolicy.DEFAULT), model);
    }

    private static Retrieval over(MemoryStore store, EmbeddingModel model) {
        CachingEmbedder embedder = new CachingEmbedder(model.embedder(), 10_000);
        HybridRetriever retriever = new HybridRetriever(store, embedder, HybridRetriever.Options.DEFAULT);
        return new Retrieval(store, embedder, retriever, new ContextService(store,
                new HybridRetriever(store, embedder, HybridRetriever.Options.FOR_CONTEXT), ContextOptions.DEFAULT));
    }

    @Override
    public void close() {
        try {
            store.close();
        } finally {
            embedder.close();
        }
    }
}
