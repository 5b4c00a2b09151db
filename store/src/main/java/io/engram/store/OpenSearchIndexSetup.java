package io.engram.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.opensearch.client.json.JsonData;
import org.opensearch.client.opensearch._types.HealthStatus;
import org.opensearch.client.opensearch._types.OpenSearchException;
import org.slf4j.LoggerFactory;

/**
 * The memory index's setup and migration: the template, the index with the embedding model of its vectors in its
 * mapping's {@code _meta}, and the fields an index created by an earlier version lacks.
 */
final class OpenSearchIndexSetup {

    private static final String META_MODEL = "embedding_model";
    /** The index setting that keeps vectors out of the stored {@code _source} (k-NN derived source; static). */
    static final String DERIVED_SOURCE = "index.knn.derived_source.enabled";
    /** The old-layout indices already told of, so each is logged once per JVM however many stores open it. */
    private static final Set<String> TOLD_OLD_LAYOUT = ConcurrentHashMap.newKeySet();
    /** The fields added to the mapping since the first version: an index made before them gets them on start. */
    private static final List<String> ADDED_FIELDS = List.of("key", "supersedes", "superseded_by", "superseded_at",
            "valid_from", "valid_until", "expires_at", "sources_from", MemoryReader.ENTITIES);

    private final OpenSearchHttp http;
    private final String index;

    OpenSearchIndexSetup(OpenSearchHttp http, String index) {
        this.http = http;
        this.index = index;
    }

    /** {@link MemoryIndexAdmin#ensureIndex}. */
    void ensureIndex(String embeddingModel, int dimension, VectorEncoding encoding) {
        try {
            http.send("PUT", "/_index_template/" + MemoryIndexTemplate.NAME,
                    MemoryIndexTemplate.body(dimension, encoding).toString(), 200);
            if (!exists()) {
                create(embeddingModel);
            }
            http.client().cluster().health(h -> h.index(index).waitForStatus(HealthStatus.Yellow));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot set up index " + index, e);
        }
        tellIfOldLayout();
        JsonNode mappings = mappings();
        addEnglishText(mappings);
        addMissingFields(mappings);
        String recorded = recordedModel(mappings);
        if (!recorded.equals(embeddingModel)) {
            throw new IllegalStateException("index " + index + " holds vectors of embedding model " + recorded
                    + ", not " + embeddingModel + ": keep embed.model=" + recorded + ", or write to a new opensearch.index"
                    + " and replay the topics into it (docs/operations.md, \"Changing the embedding model\")");
        }
        requireEncoding(mappings, encoding);
    }

    private void requireEncoding(JsonNode mappings, VectorEncoding encoding) {
        VectorEncoding held = VectorEncoding.ofMapping(mappings.path("properties").path("embedding"));
        if (held != encoding) {
            throw new IllegalStateException("index " + index + " holds its vectors in encoding " + held.id() + ", not "
                    + encoding.id() + ": keep opensearch.vector-encoding=" + held.id() + ", or write to a new"
                    + " opensearch.index and replay the topics into it (docs/operations.md, \"Changing the embedding model\")");
        }
    }

    /** The model goes into this index's mapping, not the template that several indices share. */
    private void create(String embeddingModel) throws IOException {
        try {
            http.client().indices().create(c -> c.index(index).mappings(m -> m.meta(META_MODEL, JsonData.of(embeddingModel))));
        } catch (OpenSearchException e) {
            if (!"resource_already_exists_exception".equals(e.error().type())) {
                throw e;
            }
        }
    }

    /**
     * An index created before vectors left {@code _source} keeps working (its sources hold the vectors, so updates
     * keep them), but stores each vector twice: says so once, with the way to move it.
     */
    private void tellIfOldLayout() {
        if (!derivedSource() && TOLD_OLD_LAYOUT.add(index)) {
            LoggerFactory.getLogger(OpenSearchIndexSetup.class).warn("index {} stores each vector twice (in _source"
                    + " too, the layout before {}): ./engram index migrate moves it to the current layout"
                    + " (docs/operations.md, \"Moving an index to the current layout\")", index, DERIVED_SOURCE);
        }
    }

    /** Whether the index keeps vectors out of its stored sources. */
    boolean derivedSource() {
        return "true".equals(settings().path(DERIVED_SOURCE).asText());
    }

    /** The index's settings, flat ({@code index.…} keys), as {@code GET /INDEX/_settings} answers them. */
    JsonNode settings() {
        return single(http.send("GET", "/" + index + "/_settings?flat_settings=true", null, 200), "settings")
                .path("settings");
    }

    private boolean exists() throws IOException {
        return http.client().indices().exists(e -> e.index(index)).value();
    }

    /**
     * An index created before BM25 read {@code text.en} lacks that field: adds it to the mapping and re-indexes the
     * records in place (an update by query without a script, in the background), so lexical search finds them
     * again once it has run.
     */
    private void addEnglishText(JsonNode mappings) {
        if (!mappings.path("properties").path("text").path("fields").has("en")) {
            ObjectNode body = VectorJson.MAPPER.createObjectNode();
            body.putObject("properties").set("text", MemoryIndexTemplate.body(1).at("/template/mappings/properties/text"));
            http.send("PUT", "/" + index + "/_mapping", body.toString(), 200);
            http.send("POST", "/" + index + "/_update_by_query?conflicts=proceed&wait_for_completion=false", null, 200);
        }
    }

    /**
     * An index created before a memory's facts existed lacks their fields, and its strict mapping would refuse a
     * record carrying them: adds them as the template maps them (no record holds them yet, so none needs
     * re-indexing; records written before mentions were indexed have none until written again).
     */
    private void addMissingFields(JsonNode mappings) {
        ObjectNode missing = VectorJson.MAPPER.createObjectNode();
        JsonNode template = MemoryIndexTemplate.body(1).at("/template/mappings/properties");
        for (String field : ADDED_FIELDS) {
            if (!mappings.path("properties").has(field)) {
                missing.set(field, template.get(field));
            }
        }
        if (!missing.isEmpty()) {
            ObjectNode body = VectorJson.MAPPER.createObjectNode();
            body.set("properties", missing);
            http.send("PUT", "/" + index + "/_mapping", body.toString(), 200);
        }
    }

    /** {@link MemoryReader#embeddingModel}. */
    String embeddingModel() {
        try {
            if (!exists()) {
                throw new IllegalStateException("index " + index + " does not exist: the pipeline creates it when it"
                        + " starts (or name another index)");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reach OpenSearch for index " + index, e);
        }
        return recordedModel(mappings());
    }

    private static String recordedModel(JsonNode mappings) {
        JsonNode model = mappings.path("_meta").path(META_MODEL);
        return model.isTextual() ? model.asText() : MemoryIndexTemplate.UNRECORDED_MODEL;
    }

    /** The index's mappings, as {@code GET /INDEX/_mapping} answers them. */
    JsonNode mappings() {
        return single(http.send("GET", "/" + index + "/_mapping", null, 200), "mapping").path("mappings");
    }

    /**
     * The one index's part of an answer keyed by index name: by the concrete index's name, which differs from the
     * configured one when that is an alias.
     */
    private JsonNode single(String answer, String what) {
        JsonNode byIndex;
        try {
            byIndex = VectorJson.MAPPER.readTree(answer);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the " + what + " of index " + index, e);
        }
        if (byIndex.size() != 1) {
            List<String> names = new ArrayList<>();
            byIndex.fieldNames().forEachRemaining(names::add);
            throw new IllegalStateException(index + " names " + names.size() + " indices, not one: " + names);
        }
        return byIndex.elements().next();
    }

    /** {@link OpenSearchMemoryStore#clusterAndIndexUuid}. */
    List<String> clusterAndIndexUuid() {
        try {
            String cluster = http.client().info().clusterUuid();
            if (!exists()) {
                return List.of(cluster, "");
            }
            var settings = http.client().indices().getSettings(g -> g.index(index)).result().values().iterator().next();
            return List.of(cluster, settings.settings().index().uuid());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reach OpenSearch for index " + index, e);
        }
    }

    /** {@link MemoryIndexAdmin#refresh}. */
    void refresh() {
        http.send("POST", "/" + index + "/_refresh", null, 200);
    }
}
