package io.engram.jobs.embed;

import io.engram.model.embed.CachingEmbedder;
import io.engram.model.embed.Embedder;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.embed.ForwardingEmbedder;
import java.util.HashMap;
import java.util.Map;

/**
 * One embedder per model per task manager JVM, shared by every operator that needs it (document tokens,
 * compaction, the embedding operator), behind one content-hash cache. An ONNX session holds the model
 * (~90 MB) and its thread pool: one per slot would multiply both. Reference counted: the last operator to close
 * closes it.
 */
public final class SharedEmbedder implements EmbedderFactory {

    private static final long serialVersionUID = 1L;
    private static final Map<String, Shared> INSTANCES = new HashMap<>();

    private final EmbeddingModel model;
    private final int cacheEntries;

    /** {@code model} with a cache of {@code cacheEntries} vectors. */
    public SharedEmbedder(EmbeddingModel model, int cacheEntries) {
        this.model = model;
        this.cacheEntries = cacheEntries;
    }

    @Override
    public Embedder get() {
        String key = model.id() + "/" + cacheEntries;
        synchronized (INSTANCES) {
            Shared shared = INSTANCES.computeIfAbsent(key, k -> new Shared(k, new CachingEmbedder(model.embedder(),
                    cacheEntries)));
            shared.references++;
            return shared;
        }
    }

    /** The one embedder of its key: closing it closes the model only when no operator holds it any more. */
    private static final class Shared extends ForwardingEmbedder {
        private final String key;
        private int references;

        Shared(String key, CachingEmbedder delegate) {
            super(delegate);
            this.key = key;
        }

        @Override
        public void close() {
            synchronized (INSTANCES) {
                if (--references == 0) {
                    INSTANCES.remove(key);
                    super.close();
                }
            }
        }
    }
}
