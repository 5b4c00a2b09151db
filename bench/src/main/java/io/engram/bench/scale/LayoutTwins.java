package io.engram.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.bench.RawHttp;
import java.time.Duration;

/**
 * Two copies of the loaded index that differ in where the vector is kept and in nothing else: in {@code _source}
 * as well as the vector files (the layout before k-NN's derived source) and in the vector files only (derived
 * source). Both are made alike — the loaded index's mapping and shard count, every document reindexed — so reads
 * against them, and their bytes once merged, compare the layout alone, side by side in one run.
 */
record LayoutTwins(RawHttp http, String openSearch, String index) {

    /** Today's layout: the vector in {@code _source} too. */
    static final String SOURCE_VECTORS = "scale-layout-source-vectors";
    /** The vector in the vector files only; sources read without it unless asked for. */
    static final String DERIVED_SOURCE = "scale-layout-derived-source";
    private static final Duration PATIENCE = Duration.ofHours(1);

    void build() throws InterruptedException {
        JsonNode mappings = http.get(openSearch + "/" + index + "/_mapping").elements().next().path("mappings");
        String shards = http.get(openSearch + "/" + index + "/_settings").elements().next()
                .at("/settings/index/number_of_shards").asText();
        // the second copied from the first: the job still writes to the loaded index (summaries, a forget), and
        // both must hold the same documents
        copy(index, SOURCE_VECTORS, false, mappings, shards);
        copy(SOURCE_VECTORS, DERIVED_SOURCE, true, mappings, shards);
    }

    private void copy(String from, String name, boolean derivedSource, JsonNode mappings, String shards)
            throws InterruptedException {
        String url = openSearch + "/" + name;
        http.send("DELETE", url, null, null);
        ObjectNode create = RawHttp.JSON.createObjectNode();
        create.putObject("settings").putObject("index").put("number_of_shards", Integer.parseInt(shards))
                .put("number_of_replicas", 0).put("knn", true).put("knn.derived_source.enabled", derivedSource);
        create.set("mappings", mappings);
        http.ok("PUT", url, null, create);
        ObjectNode reindex = RawHttp.JSON.createObjectNode();
        reindex.putObject("source").put("index", from);
        reindex.putObject("dest").put("index", name);
        // a record is routed by its tenant, and derived source does not give _routing back to the reindex's read
        reindex.putObject("script").put("lang", "painless").put("source", "ctx._routing = ctx._source.tenant_id");
        JsonNode done = await(http.post(openSearch + "/_reindex?wait_for_completion=false", reindex), "reindex into " + name);
        if (done.at("/response/failures").size() > 0) {
            throw new IllegalStateException("reindex into " + name + " failed: " + done.at("/response/failures").get(0));
        }
        http.post(url + "/_refresh", null);
    }

    /** The task a request started, once completed: reindexing and merging an index outlast an HTTP timeout. */
    private JsonNode await(JsonNode started, String what) throws InterruptedException {
        String task = started.get("task").asText();
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            JsonNode state = http.get(openSearch + "/_tasks/" + task);
            if (state.path("completed").asBoolean()) {
                return state;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(what + " still running after " + PATIENCE);
            }
            Thread.sleep(1_000);
        }
    }

    /** Both twins merged to one segment per shard: bytes on disk per document in each layout. */
    ObjectNode footprint() throws InterruptedException {
        ObjectNode out = RawHttp.JSON.createObjectNode();
        long source = merged(SOURCE_VECTORS, out.putObject("source_vectors"));
        long derived = merged(DERIVED_SOURCE, out.putObject("derived_source"));
        out.put("derived_source_saves", 1 - derived / (double) source);
        return out;
    }

    private long merged(String name, ObjectNode out) throws InterruptedException {
        String url = openSearch + "/" + name;
        await(http.post(url + "/_forcemerge?max_num_segments=1&wait_for_completion=false", null), "merging " + name);
        http.post(url + "/_refresh", null);
        JsonNode primaries = http.get(url + "/_stats/store,docs").at("/_all/primaries");
        long bytes = primaries.at("/store/size_in_bytes").asLong();
        long documents = primaries.at("/docs/count").asLong();
        out.put("documents", documents).put("store_bytes", bytes).put("bytes_per_document", bytes / (double) documents);
        return bytes;
    }

    void delete() {
        http.send("DELETE", openSearch + "/" + SOURCE_VECTORS, null, null);
        http.send("DELETE", openSearch + "/" + DERIVED_SOURCE, null, null);
    }
}
