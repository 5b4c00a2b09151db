package io.engram.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What the memory index costs OpenSearch: bytes on disk per document and per record sent, segments, the node's heap;
 * and what keeping the vector out of {@code _source} would save, measured on twin indexes of a sample of the
 * documents (the same mapping, one with {@code _source.excludes: [embedding]}), each merged to one segment.
 */
record IndexFootprint(RawHttp http, String openSearch, String index) {

    private static final int TWIN_DOCUMENTS = 20_000;

    ObjectNode measure(long recordsSent) {
        http.post(openSearch + "/" + index + "/_refresh", null);
        JsonNode primaries = http.get(openSearch + "/" + index + "/_stats/store,docs,segments").at("/_all/primaries");
        long bytes = primaries.at("/store/size_in_bytes").asLong();
        long documents = primaries.at("/docs/count").asLong();
        ObjectNode out = RawHttp.JSON.createObjectNode().put("store_bytes", bytes).put("documents", documents)
                .put("bytes_per_document", bytes / (double) documents).put("bytes_per_record_sent", bytes / (double) recordsSent)
                .put("segments", primaries.at("/segments/count").asLong())
                .put("segments_memory_bytes", primaries.at("/segments/memory_in_bytes").asLong());
        JsonNode jvm = http.get(openSearch + "/_nodes/stats/jvm").path("nodes").elements().next().at("/jvm/mem");
        out.put("node_heap_used_bytes", jvm.path("heap_used_in_bytes").asLong())
                .put("node_heap_max_bytes", jvm.path("heap_max_in_bytes").asLong());
        long withVector = twin("scale-twin-with-vector", false);
        long withoutVector = twin("scale-twin-without-vector", true);
        long twinDocuments = Math.min(TWIN_DOCUMENTS, documents);
        out.put("twin_documents", twinDocuments).put("twin_bytes_per_document_source_with_vector", withVector / (double) twinDocuments)
                .put("twin_bytes_per_document_source_without_vector", withoutVector / (double) twinDocuments)
                .put("source_without_vector_saves", 1 - withoutVector / (double) withVector);
        return out;
    }

    /** A twin index of the first documents, merged to one segment: its bytes on disk (the twin is then deleted). */
    private long twin(String name, boolean vectorOutOfSource) {
        String url = openSearch + "/" + name;
        http.send("DELETE", url, null, null);
        JsonNode mappings = http.get(openSearch + "/" + index + "/_mapping").elements().next().path("mappings").deepCopy();
        if (vectorOutOfSource) {
            ((ObjectNode) mappings).putObject("_source").putArray("excludes").add("embedding");
        }
        ObjectNode create = RawHttp.JSON.createObjectNode();
        create.putObject("settings").putObject("index").put("number_of_shards", 1).put("number_of_replicas", 0).put("knn", true);
        create.set("mappings", mappings);
        http.ok("PUT", url, null, create);
        ObjectNode reindex = RawHttp.JSON.createObjectNode().put("max_docs", TWIN_DOCUMENTS);
        reindex.putObject("source").put("index", index);
        reindex.putObject("dest").put("index", name);
        http.post(openSearch + "/_reindex?refresh=true", reindex);
        http.post(url + "/_forcemerge?max_num_segments=1", null);
        http.post(url + "/_refresh", null);
        long bytes = http.get(url + "/_stats/store").at("/_all/primaries/store/size_in_bytes").asLong();
        http.ok("DELETE", url, null, null);
        return bytes;
    }
}
