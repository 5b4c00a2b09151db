package io.engram.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MemoryIndexTemplateTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyKnnVectorFieldNamesTheLuceneEngineWithCosine() {
        JsonNode mappings = MemoryIndexTemplate.body(384).at("/template/mappings");
        List<JsonNode> vectors = new ArrayList<>();
        for (Map.Entry<String, JsonNode> field : mappings.path("properties").properties()) {
            if ("knn_vector".equals(field.getValue().path("type").asText())) {
                vectors.add(field.getValue());
            }
        }
        assertThat(vectors).hasSize(1);
        for (JsonNode vector : vectors) {
            assertThat(vector.at("/method/engine").asText()).isEqualTo("lucene");
            assertThat(vector.at("/method/space_type").asText()).isEqualTo("cosinesimil");
            assertThat(vector.at("/method/name").asText()).isEqualTo("hnsw");
        }
    }

    @Test
    void dimensionFollowsTheModelAndVectorsStayOutOfSource() {
        JsonNode body = MemoryIndexTemplate.body(768);
        assertThat(body.at("/template/mappings/properties/embedding/dimension").asInt()).isEqualTo(768);
        assertThat(body.at("/template/settings/index/knn.derived_source.enabled").asBoolean()).isTrue();
        // derived source reads give no _routing back, so a required one refuses every update (docs/operations.md)
        assertThat(body.at("/template/mappings").has("_routing")).isFalse();
        assertThat(body.at("/template/mappings/properties/tenant_id/type").asText()).isEqualTo("keyword");
        assertThat(body.at("/template/settings/index/number_of_replicas").asInt()).isZero();
        assertThatThrownBy(() -> MemoryIndexTemplate.body(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aMappingWithoutTheLuceneEngineIsRefused() throws Exception {
        JsonNode faiss = JSON.readTree("""
                {"properties": {"v": {"type": "knn_vector", "dimension": 3,
                   "method": {"name": "hnsw", "engine": "faiss"}},
                 "nested": {"properties": {"w": {"type": "knn_vector", "dimension": 3}}}}}
                """);
        assertThatThrownBy(() -> MemoryIndexTemplate.requireLuceneEngine(faiss))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[v, nested.w]");
    }

    @Test
    void eachEncodingMapsTheEmbeddingOnLucene() {
        JsonNode floats = MemoryIndexTemplate.body(384, VectorEncoding.FLOAT).at("/template/mappings/properties/embedding");
        assertThat(floats.at("/method/parameters").has("encoder")).isFalse();
        assertThat(floats.at("/method/parameters/m").asInt()).isEqualTo(16);
        // only script scoring reads a vector's doc values, and the store never scores by script
        assertThat(floats.path("doc_values").asBoolean(true)).isFalse();
        assertThat(VectorEncoding.ofMapping(floats)).isEqualTo(VectorEncoding.FLOAT);
        JsonNode quantized = MemoryIndexTemplate.body(384, VectorEncoding.SQ).at("/template/mappings/properties/embedding");
        assertThat(quantized.at("/method/parameters/encoder/name").asText()).isEqualTo("sq");
        assertThat(quantized.at("/method/engine").asText()).isEqualTo("lucene");
        assertThat(quantized.at("/method/parameters/ef_construction").asInt()).isEqualTo(100);
        assertThat(quantized.path("dimension").asInt()).isEqualTo(384);
        assertThat(VectorEncoding.ofMapping(quantized)).isEqualTo(VectorEncoding.SQ);
        assertThat(MemoryIndexTemplate.body(384)).isEqualTo(MemoryIndexTemplate.body(384, VectorEncoding.DEFAULT));
    }

    @Test
    void encodingsAreNamedAndAnUnknownNameIsRefusedWithTheKnownOnes() {
        assertThat(VectorEncoding.of("float")).isEqualTo(VectorEncoding.FLOAT);
        assertThat(VectorEncoding.of(" SQ ")).isEqualTo(VectorEncoding.SQ);
        assertThatThrownBy(() -> VectorEncoding.of("int4")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown opensearch.vector-encoding 'int4': one of float, sq");
    }
}
