package io.engram.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The floor a read is measured against: OpenSearch's own k-NN and BM25 queries for a tenant, as bare as they come
 * (the tenant filter, sources without vectors), sent raw to {@code INDEX/_search?routing=TENANT}.
 */
public final class FloorQueries {

    private static final ObjectMapper JSON = new ObjectMapper();

    private FloorQueries() {
    }

    /** The {@code depth} nearest records of the tenant to {@code vector}. */
    public static ObjectNode knn(String tenant, float[] vector, int depth) {
        ObjectNode search = JSON.createObjectNode().put("size", depth);
        search.putObject("_source").putArray("excludes").add("embedding");
        ObjectNode knn = search.putObject("query").putObject("knn").putObject("embedding").put("k", depth);
        ArrayNode v = knn.putArray("vector");
        for (float f : vector) {
            v.add(f);
        }
        knn.putObject("filter").putObject("term").put("tenant_id", tenant);
        return search;
    }

    /** The tenant's {@code depth} best records for {@code text} by BM25 over the English-analysed text. */
    public static ObjectNode bm25(String tenant, String text, int depth) {
        ObjectNode search = JSON.createObjectNode().put("size", depth);
        search.putObject("_source").putArray("excludes").add("embedding");
        ObjectNode bool = search.putObject("query").putObject("bool");
        bool.putObject("must").putObject("match").put("text.en", text);
        bool.putArray("filter").addObject().putObject("term").put("tenant_id", tenant);
        return search;
    }
}
