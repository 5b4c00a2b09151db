package io.engram.store;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.hc.core5.http.HttpHost;
import org.opensearch.client.json.JsonData;
import org.opensearch.client.json.jackson.JacksonJsonpMapper;
import org.opensearch.client.opensearch.OpenSearchClient;
import org.opensearch.client.opensearch._types.FieldValue;
import org.opensearch.client.opensearch._types.OpenSearchException;
import org.opensearch.client.opensearch._types.SortOrder;
import org.opensearch.client.opensearch._types.query_dsl.Query;
import org.opensearch.client.opensearch.core.BulkResponse;
import org.opensearch.client.opensearch.core.SearchResponse;
import org.opensearch.client.opensearch.core.bulk.BulkOperation;
import org.opensearch.client.opensearch.core.bulk.BulkResponseItem;
import org.opensearch.client.opensearch.core.search.Hit;
import org.opensearch.client.opensearch.generic.Requests;
import org.opensearch.client.transport.httpclient5.ApacheHttpClient5TransportBuilder;

/**
 * The memory index in OpenSearch: the index template, idempotent bulk upserts (ids are deterministic, so a
 * replay overwrites), deletes, and the tenant-scoped reads retrieval needs. Every read and write is routed by
 * tenant and every query carries a {@code tenant_id} filter; there is no method without a tenant.
 */
public final class OpenSearchMemoryStore implements MemoryStore {

    private static final String META_MODEL = "embedding_model";
    private static final Set<Integer> RETRYABLE = Set.of(429, 502, 503, 504);
    private static final java.util.regex.Pattern STATUS_LINE = java.util.regex.Pattern.compile("status line \\[HTTP/[0-9.]+ (\\d{3})");
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = VectorJson.MAPPER;

    private final OpenSearchClient client;
    private final String index;
    private final RetryPolicy retry;

    /** A factory that opens this store on the task manager, for an operator to hold instead of the address. */
    public static MemoryStore.Factory at(String httpUrl, String index, RetryPolicy retry) {
        return new Location(httpUrl, index, retry);
    }

    private record Location(String httpUrl, String index, RetryPolicy retry) implements MemoryStore.Factory {
        private static final long serialVersionUID = 1L;

        @Override
        public MemoryStore open() {
            return new OpenSearchMemoryStore(httpUrl, index, retry);
        }
    }

    public OpenSearchMemoryStore(String httpUrl, String index, RetryPolicy retry) {
        URI uri = URI.create(httpUrl);
        HttpHost host = new HttpHost(uri.getScheme(), uri.getHost(), uri.getPort());
        this.client = new OpenSearchClient(ApacheHttpClient5TransportBuilder.builder(host)
                .setMapper(new JacksonJsonpMapper(VectorJson.MAPPER.copy()
                        // what the client's default mapper sets, on the fast float reader and writer
                        .setSerializationInclusion(JsonInclude.Include.NON_NULL).findAndRegisterModules())).build());
        this.index = index;
        this.retry = retry;
    }

    /** The index this store reads and writes. */
    public String index() {
        return index;
    }

    @Override
    public void ensureIndex(String embeddingModel, int dimension) {
        try {
            send("PUT", "/_index_template/" + MemoryIndexTemplate.NAME, MemoryIndexTemplate.body(dimension).toString(), 200);
            if (!client.indices().exists(e -> e.index(index)).value()) {
                try { // the model goes into this index's mapping, not the template that several indices share
                    client.indices().create(c -> c.index(index).mappings(m -> m.meta(META_MODEL, JsonData.of(embeddingModel))));
                } catch (OpenSearchException e) {
                    if (!"resource_already_exists_exception".equals(e.error().type())) {
                        throw e;
                    }
                }
            }
            client.cluster().health(h -> h.index(index).waitForStatus(
                    org.opensearch.client.opensearch._types.HealthStatus.Yellow));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot set up index " + index, e);
        }
        JsonNode mappings = mappings();
        addEnglishText(mappings);
        String recorded = recordedModel(mappings);
        if (!recorded.equals(embeddingModel)) {
            throw new IllegalStateException("index " + index + " holds vectors of embedding model " + recorded
                    + ", not " + embeddingModel + ": keep embed.model=" + recorded + ", or write to a new opensearch.index"
                    + " and replay the topics into it (docs/operations.md, \"Changing the embedding model\")");
        }
    }

    /**
     * An index created before BM25 read {@code text.en} lacks that field: adds it to the mapping and re-indexes the
     * records in place (an update by query without a script, in the background), so lexical search finds them
     * again once it has run.
     */
    private void addEnglishText(JsonNode mappings) {
        if (!mappings.path("properties").path("text").path("fields").has("en")) {
            var body = JSON.createObjectNode();
            body.putObject("properties").set("text", MemoryIndexTemplate.body(1).at("/template/mappings/properties/text"));
            send("PUT", "/" + index + "/_mapping", body.toString(), 200);
            send("POST", "/" + index + "/_update_by_query?conflicts=proceed&wait_for_completion=false", null, 200);
        }
    }

    @Override
    public String embeddingModel() {
        try {
            if (!client.indices().exists(e -> e.index(index)).value()) {
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
    private JsonNode mappings() {
        try {
            return JSON.readTree(send("GET", "/" + index + "/_mapping", null, 200)).path(index).path("mappings");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the mapping of index " + index, e);
        }
    }

    @Override
    public void upsert(List<MemoryRecord> records) {
        Map<String, BulkOperation> pending = new LinkedHashMap<>();
        for (MemoryRecord r : records) {
            pending.put(r.id(), BulkOperation.of(b -> b.index(i -> i.index(index).id(r.id()).routing(r.tenantId())
                    .document(r.toSource()))));
        }
        write(pending);
    }

    @Override
    public void delete(String tenantId, List<String> ids) {
        Map<String, BulkOperation> pending = new LinkedHashMap<>();
        for (String id : ids) {
            pending.put(id, BulkOperation.of(b -> b.delete(d -> d.index(index).id(id).routing(tenantId))));
        }
        write(pending);
    }

    private void write(Map<String, BulkOperation> pending) {
        List<StoreWriteException.ItemFailure> permanent = new ArrayList<>();
        Exception lastError = null;
        for (int attempt = 0; attempt < retry.maxAttempts() && !pending.isEmpty(); attempt++) {
            if (attempt > 0) {
                sleep(retry.backoff(attempt - 1).toMillis());
            }
            BulkResponse response;
            try {
                List<BulkOperation> operations = new ArrayList<>(pending.values());
                response = client.bulk(b -> b.operations(operations));
            } catch (IOException | OpenSearchException e) {
                int status = statusOf(e);
                if (status != 0 && !RETRYABLE.contains(status)) {
                    // refused for good (a wrong password, a bad request): retrying only delays the failure
                    throw new StoreWriteException("OpenSearch refused the bulk request with HTTP " + status + ": "
                            + e.getMessage(), List.of(), e);
                }
                lastError = e; // connection loss, or an overloaded or restarting node: retry everything pending
                continue;
            }
            List<StoreWriteException.ItemFailure> retryable = new ArrayList<>();
            for (BulkResponseItem item : response.items()) {
                if (item.error() == null || (item.status() == 404 && item.result() != null)) {
                    pending.remove(item.id());
                } else if (RETRYABLE.contains(item.status())) {
                    retryable.add(new StoreWriteException.ItemFailure(item.id(), item.status(), item.error().reason()));
                } else {
                    pending.remove(item.id());
                    permanent.add(new StoreWriteException.ItemFailure(item.id(), item.status(),
                            item.error().type() + ": " + item.error().reason()));
                }
            }
            if (!retryable.isEmpty()) {
                lastError = new StoreWriteException("items to retry", retryable, null);
            }
        }
        if (!permanent.isEmpty()) {
            throw new StoreWriteException("OpenSearch refused " + permanent.size() + " documents", permanent, lastError);
        }
        if (!pending.isEmpty()) {
            List<StoreWriteException.ItemFailure> left = new ArrayList<>();
            pending.keySet().forEach(id -> left.add(new StoreWriteException.ItemFailure(id, 0, "not written")));
            throw new StoreWriteException(pending.size() + " documents not written after " + retry.maxAttempts()
                    + " attempts", left, lastError);
        }
    }

    /**
     * The HTTP status a whole request was answered with, or 0 when no answer came (connection loss, timeout).
     * The client wraps an error answer in layers (an IOException around a TransportException around the
     * response), so the chain is searched.
     */
    private static int statusOf(Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof OpenSearchException refused) {
                return refused.status();
            }
            if (t instanceof org.opensearch.client.transport.httpclient5.ResponseException) {
                // an answer that is not an OpenSearch error body: its message holds "status line [HTTP/1.1 503 …]"
                java.util.regex.Matcher status = STATUS_LINE.matcher(String.valueOf(t.getMessage()));
                if (status.find()) {
                    return Integer.parseInt(status.group(1));
                }
            }
        }
        return 0;
    }

    @Override
    public long deleteOlderDocumentVersions(String tenantId, String agentId, String docPath, long keepVersion) {
        refresh(); // delete-by-query sees only searchable documents, and older chunks may have just been written
        String body = "{\"query\":{\"bool\":{\"filter\":["
                + term("tenant_id", tenantId) + "," + term("agent_id", agentId) + "," + term("doc_path", docPath)
                + ",{\"terms\":{\"type\":[\"invariant\",\"lore\"]}},{\"range\":{\"doc_version\":{\"lt\":" + keepVersion
                + "}}}]}}}";
        String response = send("POST", "/" + index + "/_delete_by_query?refresh=true&conflicts=proceed&routing="
                + URLEncoder.encode(tenantId, StandardCharsets.UTF_8), body, 200);
        try {
            return JSON.readTree(response).path("deleted").asLong();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public long forget(String tenantId, ForgetScope scope, String target) {
        refresh(); // delete-by-query sees only searchable documents
        ArrayNode covered = JSON.createArrayNode();
        switch (scope) {
            case MEMORY -> {
                covered.addObject().putObject("ids").putArray("values").add(target);
                covered.addObject().putObject("term").put("source_refs", target);
                // a summary names its turns by turn id, within its session
                Optional<MemoryRecord> turn = get(tenantId, target).filter(r -> r.type() == RecordType.TURN);
                turn.flatMap(t -> RecordIds.turnIdOf(tenantId, t.sessionId(), target)).ifPresent(turnId -> {
                    ArrayNode filter = covered.addObject().putObject("bool").putArray("filter");
                    filter.addObject().putObject("term").put("session_id", turn.get().sessionId());
                    filter.addObject().putObject("term").put("source_refs", turnId);
                });
            }
            case SESSION -> covered.addObject().putObject("term").put("session_id", target);
            case USER -> {
                covered.addObject().putObject("term").put("user_id", target);
                ArrayNode sessions = covered.addObject().putObject("terms").putArray("session_id");
                sessionsOf(tenantId, target).forEach(sessions::add);
            }
        }
        ObjectNode body = JSON.createObjectNode();
        ObjectNode bool = body.putObject("query").putObject("bool");
        bool.putArray("filter").addObject().putObject("term").put("tenant_id", tenantId);
        bool.set("should", covered);
        bool.put("minimum_should_match", 1);
        String response = send("POST", "/" + index + "/_delete_by_query?refresh=true&conflicts=proceed&routing="
                + URLEncoder.encode(tenantId, StandardCharsets.UTF_8), body.toString(), 200);
        try {
            return JSON.readTree(response).path("deleted").asLong();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The sessions in which a user's records appear. */
    private List<String> sessionsOf(String tenantId, String userId) {
        ObjectNode body = JSON.createObjectNode().put("size", 0);
        ArrayNode filter = body.putObject("query").putObject("bool").putArray("filter");
        filter.addObject().putObject("term").put("tenant_id", tenantId);
        filter.addObject().putObject("term").put("user_id", userId);
        body.putObject("aggs").putObject("sessions").putObject("terms").put("field", "session_id").put("size", 65_536);
        String response = send("POST", "/" + index + "/_search?routing=" + URLEncoder.encode(tenantId,
                StandardCharsets.UTF_8), body.toString(), 200);
        List<String> sessions = new ArrayList<>();
        try {
            JSON.readTree(response).at("/aggregations/sessions/buckets").forEach(b -> sessions.add(b.get("key").asText()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sessions;
    }

    @Override
    public Optional<MemoryRecord> get(String tenantId, String id) {
        List<ScoredRecord> hits = search(tenantId, 1, Query.of(q -> q.bool(b -> b.filter(filters(tenantId, Set.of()))
                .filter(f -> f.ids(i -> i.values(id))))), null, false);
        return hits.stream().map(ScoredRecord::record).findFirst();
    }

    @Override
    public Page list(String tenantId, Map<String, Object> terms, Set<RecordType> types, int limit, String cursor) {
        ObjectNode body = JSON.createObjectNode().put("size", limit + 1);
        body.putObject("_source").putArray("excludes").add("embedding");
        ArrayNode filter = body.putObject("query").putObject("bool").putArray("filter");
        filter.addObject().putObject("term").put("tenant_id", tenantId);
        if (!types.isEmpty()) {
            ArrayNode values = filter.addObject().putObject("terms").putArray("type");
            types.forEach(t -> values.add(t.label()));
        }
        terms.forEach((field, value) -> filter.addObject().putObject("term").putPOJO(field, value));
        ArrayNode sort = body.putArray("sort");
        sort.addObject().put("ts", "desc");
        sort.addObject().put("_id", "asc");
        if (cursor != null) {
            body.set("search_after", PageCursor.decode(cursor));
        }
        String response = send("POST", "/" + index + "/_search?routing=" + URLEncoder.encode(tenantId,
                StandardCharsets.UTF_8), body.toString(), 200);
        List<MemoryRecord> records = new ArrayList<>();
        JsonNode last = null;
        try {
            for (JsonNode hit : JSON.readTree(response).at("/hits/hits")) {
                if (records.size() == limit) {
                    return new Page(records, PageCursor.encode(last));
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> source = JSON.convertValue(hit.get("_source"), Map.class);
                MemoryRecord record = MemoryRecord.fromSource(hit.get("_id").asText(), source);
                if (!tenantId.equals(record.tenantId())) {
                    throw new IllegalStateException("tenant filter breached: " + record.id() + " of " + record.tenantId());
                }
                records.add(record);
                last = hit.get("sort");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Page(records, null);
    }

    private static String term(String field, String value) {
        return "{\"term\":{\"" + field + "\":" + com.fasterxml.jackson.databind.node.TextNode.valueOf(value) + "}}";
    }

    @Override
    public void refresh() {
        send("POST", "/" + index + "/_refresh", null, 200);
    }

    @Override
    public List<ScoredRecord> bm25(String tenantId, String query, int k, Set<RecordType> types) {
        Query match = Query.of(q -> q.match(m -> m.field("text.en").query(FieldValue.of(query))));
        return search(tenantId, k, Query.of(q -> q.bool(b -> b.must(match).filter(filters(tenantId, types)))), null, true);
    }

    @Override
    public List<MemoryRecord> turnsAround(String tenantId, Map<String, Set<Integer>> positionsBySession, int radius) {
        List<Query> around = new ArrayList<>();
        int size = 0;
        for (Map.Entry<String, Set<Integer>> session : positionsBySession.entrySet()) {
            for (int position : session.getValue()) {
                around.add(Query.of(q -> q.bool(b -> b
                        .filter(f -> f.term(t -> t.field("session_id").value(FieldValue.of(session.getKey()))))
                        .filter(f -> f.range(r -> r.field("position").gte(JsonData.of(position - radius))
                                .lte(JsonData.of(position + radius)))))));
                size += 2 * radius + 1;
            }
        }
        if (around.isEmpty()) {
            return List.of();
        }
        return search(tenantId, size, Query.of(q -> q.bool(b -> b.filter(filters(tenantId, Set.of(RecordType.TURN)))
                .should(around).minimumShouldMatch("1"))), null, false).stream().map(ScoredRecord::record).toList();
    }

    @Override
    public List<List<RefHit>> bm25Candidates(String tenantId, List<String> queries, int size, Set<RecordType> types) {
        List<String> searches = new ArrayList<>();
        for (String query : queries) {
            var search = JSON.createObjectNode().put("size", size);
            search.putArray("_source").add("source_refs").add("text");
            var bool = search.putObject("query").putObject("bool");
            bool.putObject("must").putObject("match").put("text", query);
            tenantFilter(bool.putArray("filter"), tenantId, types);
            searches.add(search.toString());
        }
        List<List<RefHit>> results = new ArrayList<>();
        for (var response : msearch(tenantId, searches)) {
            List<RefHit> hits = new ArrayList<>();
            for (var hit : response.path("hits").path("hits")) {
                List<String> refs = new ArrayList<>();
                hit.path("_source").path("source_refs").forEach(r -> refs.add(r.asText()));
                hits.add(new RefHit(hit.get("_id").asText(), refs, hit.path("_source").path("text").asText()));
            }
            results.add(hits);
        }
        return results;
    }

    @Override
    public TermCounts termCounts(String tenantId, Collection<String> terms, Set<RecordType> types) {
        List<String> ordered = new ArrayList<>(new LinkedHashSet<>(terms));
        var search = JSON.createObjectNode().put("size", 0).put("track_total_hits", true);
        tenantFilter(search.putObject("query").putObject("bool").putArray("filter"), tenantId, types);
        if (!ordered.isEmpty()) { // OpenSearch refuses a filters aggregation without filters
            var buckets = search.putObject("aggs").putObject("df").putObject("filters").putObject("filters");
            for (int i = 0; i < ordered.size(); i++) {
                buckets.putObject("t" + i).putObject("term").put("text", ordered.get(i));
            }
        }
        JsonNode response = msearch(tenantId, List.of(search.toString())).get(0);
        Map<String, Long> df = new HashMap<>();
        for (int i = 0; i < ordered.size(); i++) {
            df.put(ordered.get(i), response.path("aggregations").path("df").path("buckets").path("t" + i).path("doc_count").asLong());
        }
        return new TermCounts(response.path("hits").path("total").path("value").asLong(), df);
    }

    private static void tenantFilter(ArrayNode filter, String tenantId, Set<RecordType> types) {
        filter.addObject().putObject("term").put("tenant_id", tenantId);
        if (!types.isEmpty()) {
            var labels = filter.addObject().putObject("terms").putArray("type");
            types.forEach(t -> labels.add(t.label()));
        }
    }

    /** Runs searches against the tenant's shard in one round trip; any failed search fails the call. */
    private List<JsonNode> msearch(String tenantId, List<String> searches) {
        if (tenantId == null || tenantId.isEmpty()) {
            throw new IllegalArgumentException("every query needs a tenant");
        }
        if (searches.isEmpty()) {
            return List.of(); // OpenSearch refuses an empty multi-search
        }
        StringBuilder body = new StringBuilder();
        String header = JSON.createObjectNode().put("index", index).put("routing", tenantId).toString();
        for (String search : searches) {
            body.append(header).append('\n').append(search).append('\n');
        }
        try {
            List<JsonNode> responses = new ArrayList<>();
            for (var response : JSON.readTree(send("POST", "/_msearch", body.toString(), 200)).path("responses")) {
                if (response.has("error")) {
                    throw new IllegalStateException("search failed: " + response.get("error"));
                }
                responses.add(response);
            }
            return responses;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public List<ScoredRecord> knn(String tenantId, float[] vector, int k, Set<RecordType> types) {
        List<Float> v = new ArrayList<>(vector.length);
        for (float f : vector) {
            v.add(f);
        }
        Query filter = Query.of(q -> q.bool(b -> b.filter(filters(tenantId, types))));
        Query knn = Query.of(q -> q.knn(n -> n.field("embedding").vector(v).k(k).filter(filter)));
        // the outer filter is redundant with the pre-filter: it keeps the tenant guarantee local to this method
        return search(tenantId, k, Query.of(q -> q.bool(b -> b.must(knn).filter(filters(tenantId, Set.of())))), null, true);
    }

    @Override
    public List<MemoryRecord> find(String tenantId, Map<String, Object> terms, Set<RecordType> types, int size,
                                   String sortField, boolean ascending) {
        List<Query> filters = filters(tenantId, types);
        terms.forEach((field, value) -> filters.add(Query.of(q -> q.term(t -> t.field(field).value(fieldValue(value))))));
        return search(tenantId, size, Query.of(q -> q.bool(b -> b.filter(filters))),
                sortField == null ? null : new Sort(sortField, ascending), true)
                .stream().map(ScoredRecord::record).toList();
    }

    @Override
    public long count(String tenantId, Set<RecordType> types) {
        try {
            return client.count(c -> c.index(index).routing(tenantId)
                    .query(Query.of(q -> q.bool(b -> b.filter(filters(tenantId, types)))))).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private record Sort(String field, boolean ascending) {
    }

    /** Hits with their vectors, or without them when {@code withVectors} is false (less to send and parse). */
    private List<ScoredRecord> search(String tenantId, int size, Query query, Sort sort, boolean withVectors) {
        try {
            @SuppressWarnings({"unchecked", "rawtypes"})
            SearchResponse<Map<String, Object>> response = (SearchResponse) client.search(s -> {
                s.index(index).routing(tenantId).size(size).query(query);
                if (!withVectors) {
                    s.source(src -> src.filter(f -> f.excludes("embedding")));
                }
                if (sort != null) {
                    s.sort(o -> o.field(f -> f.field(sort.field()).order(sort.ascending() ? SortOrder.Asc : SortOrder.Desc)));
                }
                return s;
            }, Map.class);
            List<ScoredRecord> out = new ArrayList<>();
            for (Hit<Map<String, Object>> hit : response.hits().hits()) {
                MemoryRecord record = MemoryRecord.fromSource(hit.id(), hit.source());
                if (!tenantId.equals(record.tenantId())) {
                    throw new IllegalStateException("tenant filter breached: " + hit.id() + " of " + record.tenantId());
                }
                out.add(new ScoredRecord(record, hit.score() == null ? 0 : hit.score()));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("search failed on " + index, e);
        }
    }

    private static List<Query> filters(String tenantId, Set<RecordType> types) {
        if (tenantId == null || tenantId.isEmpty()) {
            throw new IllegalArgumentException("every query needs a tenant");
        }
        List<Query> filters = new ArrayList<>();
        filters.add(Query.of(q -> q.term(t -> t.field("tenant_id").value(FieldValue.of(tenantId)))));
        if (!types.isEmpty()) {
            List<FieldValue> values = types.stream().map(t -> FieldValue.of(t.label())).toList();
            filters.add(Query.of(q -> q.terms(t -> t.field("type").terms(v -> v.value(values)))));
        }
        return filters;
    }

    private static FieldValue fieldValue(Object value) {
        if (value instanceof Number n) {
            return FieldValue.of(n.longValue());
        }
        if (value instanceof Boolean b) {
            return FieldValue.of(b);
        }
        return FieldValue.of(String.valueOf(value));
    }

    private String send(String method, String path, String jsonBody, int expected) {
        Requests.JsonBodyBuilder request = Requests.builder().method(method).endpoint(path);
        if (jsonBody != null) {
            request.json(jsonBody);
        }
        try (var response = client.generic().execute(request.build())) {
            String body = response.getBody().map(b -> b.bodyAsString()).orElse("");
            if (response.getStatus() != expected) {
                throw new IllegalStateException(method + " " + path + " answered " + response.getStatus() + ": " + body);
            }
            return body;
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + " failed", e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while backing off", e);
        }
    }

    @Override
    public void close() {
        try {
            client._transport().close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
