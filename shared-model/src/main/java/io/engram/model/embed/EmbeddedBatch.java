package io.engram.model.embed;

import java.util.List;

/**
 * The embeddings of a batch of texts, in order, with where they came from.
 *
 * @param cacheHits  texts whose vector a cache held
 * @param modelTexts texts the model embedded (a text repeated within the batch once)
 */
public record EmbeddedBatch(List<Embedding> embeddings, int cacheHits, int modelTexts) {

    public EmbeddedBatch {
        embeddings = List.copyOf(embeddings);
    }
}
