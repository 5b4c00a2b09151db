package io.engram.bench.footprint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.bench.RawHttp;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.store.MemoryIndexTemplate;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import io.engram.store.VectorEncoding;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * One way of holding the memory index: its vector encoding, whether the vector is kept in {@code _source} (today)
 * or left out of it and derived from the vector files when a document is read ({@code index.knn.derived_source.enabled}),
 * and whether the k-NN field also keeps each vector in binary doc values (the plugin's default, and the template's
 * before it turned them off: only script scoring reads them, which the store does not use).
 */
record FootprintLayout(String name, VectorEncoding encoding, boolean derivedSource, boolean vectorDocValues) {

    static final List<FootprintLayout> ALL = List.of(
            new FootprintLayout("float, vector in _source", VectorEncoding.FLOAT, false, true),
            new FootprintLayout("float, derived source", VectorEncoding.FLOAT, true, true),
            new FootprintLayout("sq, derived source", VectorEncoding.SQ, true, true),
            new FootprintLayout("float, derived source, no doc values", VectorEncoding.FLOAT, true, false),
            new FootprintLayout("sq, derived source, no doc values", VectorEncoding.SQ, true, false));

    private static final RawHttp HTTP = new RawHttp();

    /** What the layout took for {@code records}, merged to one segment, and what its k-NN query found. */
    record Measured(FootprintLayout layout, long storeBytes, Map<String, Long> bytesByExtension, int documents,
                    List<List<String>> hits, double sourceVectorError) {
    }

    /**
     * Writes {@code records} (one tenant) through the store into a new one-shard index of this layout on the node at
     * {@code url}, merges it to one segment, measures it, asks the k-NN query of each of {@code queries} for its
     * top {@code k}, and deletes the index.
     */
    Measured measure(String url, String model, List<MemoryRecord> records, List<float[]> queries, int k) {
        String index = "footprint-" + encoding.id() + (derivedSource ? "-derived" : "-source") + (vectorDocValues ? "" : "-nodv");
        HTTP.send("DELETE", url + "/" + index, null, null);
        ObjectNode create = RawHttp.JSON.createObjectNode();
        ObjectNode settings = create.putObject("settings").putObject("index");
        settings.put("number_of_shards", 1).put("number_of_replicas", 0).put("knn", true)
                .put("knn.derived_source.enabled", derivedSource)
                .put("compound_format", false); // files by extension, even for a small index
        int dimension = records.get(0).embedding().length;
        ObjectNode mappings = (ObjectNode) MemoryIndexTemplate.body(dimension, encoding).at("/template/mappings");
        mappings.putObject("_meta").put("embedding_model", model);
        ((ObjectNode) mappings.at("/properties/embedding")).put("doc_values", vectorDocValues);
        create.set("mappings", mappings);
        HTTP.ok("PUT", url + "/" + index, null, create);
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(url, index, RetryPolicy.DEFAULT)) {
            store.ensureIndex(model, dimension, encoding);
            for (int from = 0; from < records.size(); from += 500) {
                store.upsert(records.subList(from, Math.min(records.size(), from + 500)));
            }
            store.refresh();
            HTTP.post(url + "/" + index + "/_forcemerge?max_num_segments=1", null);
            store.refresh();
            JsonNode stats = HTTP.get(url + "/" + index + "/_stats/store,docs").at("/_all/primaries");
            String uuid = HTTP.get(url + "/" + index + "/_settings").path(index).at("/settings/index/uuid").asText();
            String tenant = records.get(0).tenantId();
            List<List<String>> hits = queries.stream().map(q -> store.knn(tenant, q, k, Set.of()).stream()
                    .map(h -> h.record().id()).toList()).toList();
            Measured measured = new Measured(this, stats.at("/store/size_in_bytes").asLong(), bytesByExtension(dataPath(url), uuid),
                    stats.at("/docs/count").asInt(), hits, sourceVectorError(url, index, records.get(0)));
            HTTP.ok("DELETE", url + "/" + index, null, null);
            return measured;
        }
    }

    /**
     * The largest difference between a record's vector and the one its {@code _source} returns (derived from the
     * vector files when the layout keeps it out of {@code _source}); a missing or short vector is an error.
     */
    private static double sourceVectorError(String url, String index, MemoryRecord record) {
        JsonNode source = HTTP.get(url + "/" + index + "/_doc/" + record.id() + "?routing=" + record.tenantId())
                .at("/_source/embedding");
        float[] vector = record.embedding();
        if (source.size() != vector.length) {
            throw new IllegalStateException(index + " returns " + source.size() + " of " + vector.length
                    + " vector components in _source: " + source);
        }
        double error = 0;
        for (int i = 0; i < vector.length; i++) {
            error = Math.max(error, Math.abs(source.get(i).asDouble() - vector[i]));
        }
        return error;
    }

    /** Where the node keeps its data. */
    private static Path dataPath(String url) {
        JsonNode node = HTTP.get(url + "/_nodes/stats/fs").path("nodes").elements().next();
        return Path.of(node.at("/fs/data/0/path").asText());
    }

    /** The bytes of the index's files on disk by extension (.vec floats, .veq quantized, .vex graph, …). */
    private static Map<String, Long> bytesByExtension(Path dataDir, String uuid) {
        Map<String, Long> bytes = new TreeMap<>();
        try (Stream<Path> files = Files.walk(dataDir)) {
            for (Path file : files.filter(f -> f.toString().contains("/indices/" + uuid + "/") && Files.isRegularFile(f)
                    && f.getParent().getFileName().toString().equals("index")).toList()) {
                String name = file.getFileName().toString();
                String extension = name.contains(".") ? name.substring(name.lastIndexOf('.') + 1) : name;
                bytes.merge(extension, Files.size(file), Long::sum);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the files of index " + uuid + " under " + dataDir, e);
        }
        if (bytes.isEmpty()) {
            throw new IllegalStateException("no files of index " + uuid + " under " + dataDir);
        }
        return bytes;
    }
}
