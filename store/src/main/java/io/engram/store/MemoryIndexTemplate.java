package io.engram.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The OpenSearch index template of memory records (docs/contracts.md, "Contracts"), from
 * {@code engram/opensearch/memory-records-template.json}, with the embedding dimension of the configured model and
 * the configured {@link VectorEncoding}.
 */
public final class MemoryIndexTemplate {

    public static final String NAME = "engram-memories";
    public static final String INDEX = "engram-memories-v1";
    /** The model of an index created before indices recorded theirs: every such index was made by this one. */
    public static final String UNRECORDED_MODEL = "all-minilm-l6-v2";
    private static final String RESOURCE = "engram/opensearch/memory-records-template.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    private MemoryIndexTemplate() {
    }

    /** The template body for {@code PUT _index_template/engram-memories}, float vectors of {@code dimension}. */
    public static ObjectNode body(int dimension) {
        return body(dimension, VectorEncoding.FLOAT);
    }

    /** The template body for {@code PUT _index_template/engram-memories}, vectors of {@code dimension} in {@code encoding}. */
    public static ObjectNode body(int dimension, VectorEncoding encoding) {
        if (dimension < 1 || dimension > 16_000) {
            throw new IllegalArgumentException("embedding dimension out of range: " + dimension);
        }
        ObjectNode template;
        try (InputStream in = MemoryIndexTemplate.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            template = (ObjectNode) JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ObjectNode embedding = (ObjectNode) template.at("/template/mappings/properties/embedding");
        embedding.put("dimension", dimension);
        encoding.applyTo(embedding);
        requireLuceneEngine(template.at("/template/mappings"));
        return template;
    }

    /**
     * Refuses any {@code knn_vector} field that does not name the Lucene engine: without it OpenSearch 2.19
     * picks faiss, accepts the mapping, and the first flush fails in a native call and hangs the request.
     */
    public static void requireLuceneEngine(JsonNode mappings) {
        List<String> offenders = new ArrayList<>();
        collectNonLucene(mappings.path("properties"), "", offenders);
        if (!offenders.isEmpty()) {
            throw new IllegalArgumentException("knn_vector fields must set method.engine=lucene: " + offenders);
        }
    }

    private static void collectNonLucene(JsonNode properties, String prefix, List<String> offenders) {
        for (Map.Entry<String, JsonNode> field : properties.properties()) {
            String path = prefix + field.getKey();
            JsonNode spec = field.getValue();
            if ("knn_vector".equals(spec.path("type").asText())
                    && !"lucene".equals(spec.path("method").path("engine").asText())) {
                offenders.add(path);
            }
            collectNonLucene(spec.path("properties"), path + ".", offenders);
        }
    }
}
