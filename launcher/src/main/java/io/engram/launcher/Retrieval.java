package io.engram.launcher;

import io.engram.jobs.retrieval.ContextService;
import io.engram.jobs.retrieval.HybridRetriever;
import io.engram.jobs.store.OpenSearchMemoryStore;
import io.engram.jobs.store.RetryPolicy;
import io.engram.model.embed.CachingEmbedder;
import io.engram.model.embed.EmbedderOptions;
import io.engram.model.embed.OnnxEmbedder;
import io.engram.model.partition.TierBudget;
import io.engram.model.retrieval.ContinuityTail;

/** The read side wired once: store, cached query embedder, hybrid retriever, context service. */
final class Retrieval implements AutoCloseable {

    final OpenSearchMemoryStore store;
    final CachingEmbedder embedder;
    final HybridRetriever retriever;
    final ContextService context;

    Retrieval(String openSearchUrl, String index) {
        this.store = new OpenSearchMemoryStore(openSearchUrl, index, RetryPolicy.DEFAULT);
        this.embedder = new CachingEmbedder(OnnxEmbedder.allMiniLmL6V2(EmbedderOptions.defaults()), 10_000);
        this.retriever = new HybridRetriever(store, embedder, HybridRetriever.Options.DEFAULT);
        this.context = new ContextService(store, retriever, TierBudget.DEFAULT_ALPHA2, ContinuityTail.DEFAULT, 50);
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
