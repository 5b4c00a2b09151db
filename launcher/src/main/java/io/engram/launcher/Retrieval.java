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
public record Retrieval(OpenSearchMemoryStore store, CachingEmbedder embedder, HybridRetriever retriever,
                        ContextService context) implements AutoCloseable {

    /** The read side over one index, with the default retriever and context settings. */
    public static Retrieval open(String openSearchUrl, String index) {
        OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearchUrl, index, RetryPolicy.DEFAULT);
        CachingEmbedder embedder = new CachingEmbedder(OnnxEmbedder.allMiniLmL6V2(EmbedderOptions.defaults()), 10_000);
        HybridRetriever retriever = new HybridRetriever(store, embedder, HybridRetriever.Options.DEFAULT);
        return new Retrieval(store, embedder, retriever,
                new ContextService(store, retriever, TierBudget.DEFAULT_ALPHA2, ContinuityTail.DEFAULT, 50));
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
