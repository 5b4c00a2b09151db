package io.engram.model.embed;

import io.engram.model.tokens.TokenCounter;
import java.util.List;

/**
 * An embedder that passes every call on to another: a subclass overrides only what it adds (a cache, a shared
 * instance's reference counting).
 */
public abstract class ForwardingEmbedder implements Embedder {

    private final Embedder delegate;

    protected ForwardingEmbedder(Embedder delegate) {
        this.delegate = delegate;
    }

    /** The embedder the calls go to. */
    protected final Embedder delegate() {
        return delegate;
    }

    @Override
    public List<Embedding> embedDocuments(List<String> texts) {
        return delegate.embedDocuments(texts);
    }

    @Override
    public EmbeddedBatch embedDocumentBatch(List<String> texts) {
        return delegate.embedDocumentBatch(texts);
    }

    @Override
    public List<Embedding> embedQueries(List<String> texts) {
        return delegate.embedQueries(texts);
    }

    @Override
    public int dimension() {
        return delegate.dimension();
    }

    @Override
    public String modelId() {
        return delegate.modelId();
    }

    @Override
    public TokenCounter tokenCounter() {
        return delegate.tokenCounter();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
