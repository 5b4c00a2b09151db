package io.engram.store;

/** Setting up the memory index and making writes searchable: what the writer does at start, and tests and tools. */
public interface MemoryIndexAdmin extends AutoCloseable {

    /**
     * Installs the index template for vectors of {@code dimension} and creates the index when absent, recording
     * which embedding model made its vectors; refuses an existing index whose vectors another model made (one
     * index never mixes models: their vectors are not comparable). An index created before the template's current
     * fields gets them here.
     */
    default void ensureIndex(String embeddingModel, int dimension) {
        ensureIndex(embeddingModel, dimension, VectorEncoding.DEFAULT);
    }

    /**
     * {@link #ensureIndex(String, int)} with vectors held in {@code encoding}; refuses an existing index whose
     * vectors are held in another (the encoding is fixed in the mapping when the index is created).
     */
    void ensureIndex(String embeddingModel, int dimension, VectorEncoding encoding);

    /** Makes every write so far searchable (tests, the demo, the detector's read-back). */
    void refresh();

    @Override
    void close();
}
