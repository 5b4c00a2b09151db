package io.engram.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Moves a memory index made before vectors left {@code _source} to the current layout ({@code ./engram index
 * migrate}). Derived source is a static setting, so the records go to a new index made from the template (with the
 * old one's shards, replicas and recorded model), by {@code _reindex}; the old index is made read-only first so
 * nothing written meanwhile is lost, and the counts must match before the configured name moves to the new index.
 */
public final class MemoryIndexMigration implements AutoCloseable {

    private static final Pattern VERSIONED = Pattern.compile("^(.*-v)(\\d+)$");
    private static final long POLL_MILLIS = 500;

    /** What a migration did: from which index to which, how many records, and what the operator does next. */
    public record Result(String from, String to, long records, String nextStep) {
    }

    private final OpenSearchHttp http;
    private final String name;

    /** The migration of the index (or alias) {@code name}, the one {@code opensearch.index} names. */
    public MemoryIndexMigration(OpenSearchConnection connection, String name) {
        this.http = new OpenSearchHttp(connection);
        this.name = name;
    }

    /**
     * Copies every record into {@code to} (null: the old index's name with its version suffix raised, e.g.
     * engram-memories-v1 → engram-memories-v2) and moves the name: an alias moves to the new index; an index is
     * replaced by an alias of its name when {@code replace}, else it stays, read-only, and the result names the
     * index to configure.
     */
    public Result migrate(String to, boolean replace) {
        OpenSearchIndexSetup old = new OpenSearchIndexSetup(http, name);
        if (old.derivedSource()) {
            throw new IllegalStateException(name + " already keeps vectors out of _source: nothing to migrate");
        }
        String from = concreteIndex();
        boolean alias = !from.equals(name);
        if (alias && replace) {
            throw new IllegalArgumentException(name + " is an alias of " + from + ": the alias moves to the new index,"
                    + " and --replace (which deletes an index named " + name + ") does not apply");
        }
        String target = to != null ? to : nextName(from);
        if (exists(target)) {
            throw new IllegalStateException("index " + target + " exists already: name another one (--to)");
        }
        create(target, old.mappings(), old.settings());
        http.send("PUT", "/" + from + "/_settings", "{\"index.blocks.write\": true}", 200);
        reindex(from, target);
        http.send("POST", "/" + target + "/_refresh", null, 200);
        long before = count(from);
        long after = count(target);
        if (before != after) {
            throw new IllegalStateException(target + " holds " + after + " records, " + from + " " + before + ": "
                    + from + " is left read-only (PUT /" + from + "/_settings {\"index.blocks.write\": false} writes to"
                    + " it again) and " + target + " is kept to inspect");
        }
        return new Result(from, target, after, moveName(from, target, alias, replace));
    }

    private String moveName(String from, String target, boolean alias, boolean replace) {
        String kept = from + " is kept, read-only: delete it (DELETE /" + from + ") once satisfied";
        if (alias) {
            aliases("{\"remove\": {\"index\": \"" + from + "\", \"alias\": \"" + name + "\"}}", target);
            return "the alias " + name + " names " + target + " now; " + kept;
        }
        if (replace) {
            aliases("{\"remove_index\": {\"index\": \"" + from + "\"}}", target);
            return from + " is deleted and " + name + " is an alias of " + target + ": opensearch.index stays " + name;
        }
        return "set opensearch.index=" + target + " (and --index " + target + " for the commands that read it); " + kept;
    }

    /** One atomic alias change: the first action, then {@link #name} added as an alias of {@code target}. */
    private void aliases(String firstAction, String target) {
        http.send("POST", "/_aliases", "{\"actions\": [" + firstAction + ", {\"add\": {\"index\": \"" + target
                + "\", \"alias\": \"" + name + "\"}}]}", 200);
    }

    /** The index {@link #name} is, or the one it is an alias of. */
    private String concreteIndex() {
        JsonNode byIndex = json(http.send("GET", "/" + name + "/_alias", null, 200));
        if (byIndex.size() != 1) {
            throw new IllegalStateException(name + " names " + byIndex.size() + " indices, not one");
        }
        return byIndex.fieldNames().next();
    }

    /** The new index: the template's settings and mappings, with the old one's dimension, shards, replicas and model. */
    private void create(String target, JsonNode mappings, JsonNode settings) {
        int dimension = mappings.at("/properties/embedding/dimension").asInt();
        ObjectNode template = (ObjectNode) MemoryIndexTemplate.body(dimension).get("template");
        ObjectNode index = (ObjectNode) template.at("/settings/index");
        index.put("number_of_shards", settings.path("index.number_of_shards").asInt());
        index.put("number_of_replicas", settings.path("index.number_of_replicas").asInt());
        if (mappings.has("_meta")) {
            ((ObjectNode) template.get("mappings")).set("_meta", mappings.get("_meta"));
        }
        http.send("PUT", "/" + target, template.toString(), 200);
        http.send("GET", "/_cluster/health/" + target + "?wait_for_status=yellow&timeout=60s", null, 200);
    }

    /** Copies every record (routing kept), in the background, and waits for it; any failed record fails it. */
    private void reindex(String from, String target) {
        String body = "{\"source\": {\"index\": \"" + from + "\"}, \"dest\": {\"index\": \"" + target
                + "\", \"op_type\": \"create\"}}";
        String task = json(http.send("POST", "/_reindex?wait_for_completion=false", body, 200)).path("task").asText();
        JsonNode status = json(http.send("GET", "/_tasks/" + task, null, 200));
        while (!status.path("completed").asBoolean()) {
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while reindexing " + from + " into " + target
                        + " (task " + task + " goes on)", e);
            }
            status = json(http.send("GET", "/_tasks/" + task, null, 200));
        }
        JsonNode failures = status.at("/response/failures");
        if (status.has("error") || failures.size() > 0) {
            throw new IllegalStateException("reindexing " + from + " into " + target + " failed: "
                    + (status.has("error") ? status.get("error") : failures.get(0)) + "; " + from + " is left read-only");
        }
    }

    private long count(String index) {
        return json(http.send("GET", "/" + index + "/_count", null, 200)).path("count").asLong();
    }

    private boolean exists(String index) {
        try {
            return http.client().indices().exists(e -> e.index(index)).value();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reach OpenSearch for index " + index, e);
        }
    }

    /** The old name with its version raised, or with "-v2" added when it has none. */
    static String nextName(String index) {
        Matcher versioned = VERSIONED.matcher(index);
        return versioned.matches() ? versioned.group(1) + (Long.parseLong(versioned.group(2)) + 1) : index + "-v2";
    }

    private static JsonNode json(String text) {
        try {
            return VectorJson.MAPPER.readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        http.close();
    }
}
