package io.engram.store;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * The JSON mapper for documents that carry embedding vectors (index requests, search responses, summaries in
 * state). Their 384 floats dominate the text, and on Java 17 {@code Float.toString} and {@code Double.parseDouble}
 * fall into big-integer arithmetic for many of them: profiled, float formatting was a third of the store writer's
 * CPU. Jackson's Schubfach writer and fast parser give the same float values at a fraction of the cost.
 */
final class VectorJson {

    public static final ObjectMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                    .enable(StreamReadFeature.USE_FAST_DOUBLE_PARSER)
                    .enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER)
                    .build())
            .build();

    private VectorJson() {
    }
}
