package io.engram.model.embed;

import io.engram.model.tokens.TokenCounter;
import java.util.List;

/**
 * Turns texts into unit-length vectors. Documents (chunks, turns, summaries) and queries may get different
 * prefixes, as e5-style models require; the default model uses none. Implementations are thread-safe.
 */
public interface Embedder extends AutoCloseable {

    /** Embeddings of texts stored in the memory, in the order given. */
    List<Embedding> embedDocuments(List<String> texts);

    /**
     * {@link #embedDocuments}, saying how many texts a cache answered and how many the model embedded; an
     * embedder without a cache embeds every text.
     */
    default EmbeddedBatch embedDocumentBatch(List<String> texts) {
        return new EmbeddedBatch(embedDocuments(texts), 0, texts.size());
    }

    /** Embeddings of search queries, in the order given. */
    List<Embedding> embedQueries(List<String> texts);

    default Embedding embedQuery(String text) {
        return embedQueries(List.of(text)).get(0);
    }

    default Embedding embedDocument(String text) {
        return embedDocuments(List.of(text)).get(0);
    }

    /** Length of the vectors. */
    int dimension();

    /** Names the model, its variant and every option that changes vectors (dimension, pooling, prefixes). */
    String modelId();

    /** The model's own tokenizer as a token counter, for budgets that must match what the model sees. */
    TokenCounter tokenCounter();

    @Override
    void close();
}
