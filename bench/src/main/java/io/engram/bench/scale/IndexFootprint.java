package io.engram.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.bench.RawHttp;

/**
 * What the memory index costs OpenSearch as loaded: bytes on disk per document and per record sent, segments, the
 * node's heap. What the vector's layout costs is {@link LayoutTwins}'.
 */
record IndexFootprint(RawHttp http, String openSearch, String index) {

    ObjectNode measure(long recordsSent) {
        http.post(openSearch + "/" + index + "/_refresh", null);
        JsonNode primaries = http.get(openSearch + "/" + index + "/_stats/store,docs,segments").at("/_all/primaries");
        long bytes = primaries.at("/store/size_in_bytes").asLong();
        long documents = primaries.at("/docs/count").asLong();
        ObjectNode out = RawHttp.JSON.createObjectNode().put("store_bytes", bytes).put("documents", documents)
                .put("bytes_per_document", bytes / (double) documents).put("bytes_per_record_sent", bytes / (double) recordsSent)
                .put("segments", primaries.at("/segments/count").asLong())
                .put("segments_memory_bytes", primaries.at("/segments/memory_in_bytes").asLong())
                // flat: nested, "index.knn" (true) and "index.knn.derived_source.enabled" do not fit one JSON tree
                .put("derived_source", http.get(openSearch + "/" + index + "/_settings?flat_settings=true").elements()
                        .next().path("settings").path("index.knn.derived_source.enabled").asBoolean(false));
        JsonNode jvm = http.get(openSearch + "/_nodes/stats/jvm").path("nodes").elements().next().at("/jvm/mem");
        out.put("node_heap_used_bytes", jvm.path("heap_used_in_bytes").asLong())
                .put("node_heap_max_bytes", jvm.path("heap_max_in_bytes").asLong());
        return out;
    }
}
