package io.engram.jobs.embed;

import io.engram.model.embed.Embedder;
import java.io.Serializable;
import java.util.function.Supplier;

/**
 * Builds an embedder where an operator runs (an ONNX session is not serializable): what the partitioner, the
 * compactor and the embedding operator receive instead of a model.
 */
public interface EmbedderFactory extends Supplier<Embedder>, Serializable {
}
