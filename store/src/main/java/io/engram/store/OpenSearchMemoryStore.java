package io.engram.store;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.client.Secrets;
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
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import org.apache.hc.client5.http.auth.AuthScope;
import org.apache.hc.client5.http.auth.UsernamePasswordCredentials;
import org.apache.hc.client5.http.impl.auth.BasicCredentialsProvider;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.client5.http.ssl.ClientTlsStrategyBuilder;
import org.apache.hc.client5.http.ssl.DefaultHostnameVerifier;
import org.apache.hc.client5.http.ssl.HostnameVerificationPolicy;
import org.apache.hc.client5.http.ssl.NoopHostnameVerifier;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.ssl.SSLContexts;
import org.opensearch.client.json.JsonData;
import org.opensearch.client.json.jackson.JacksonJsonpMapper;
import org.opensearch.client.opensearch.OpenSearchClient;
import org.opensearch.client.opensearch._types.OpenSearchException;
import org.opensearch.client.opensearch.core.BulkResponse;
import org.opensearch.client.opensearch.core.bulk.BulkOperation;
import org.opensearch.client.opensearch.core.bulk.BulkResponseItem;
import org.opensearch.client.opensearch.generic.Requests;
import org.opensearch.client.transport.OpenSearchTransport;
import org.opensearch.client.transport.aws.AwsSdk2Transport;
import org.opensearch.client.transport.aws.AwsSdk2TransportOptions;
import org.opensearch.client.transport.httpclient5.ApacheHttpClient5TransportBuilder;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

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
    private final LongAdder retries = new LongAdder();
    private final LongAdder documentsFailed = new LongAdder();
    /** What a refused login is to be checked against, for the error message. */
    private final String credentials;

    /** A factory that opens this store on the task manager, for an operator to hold instead of the address. */
    public static MemoryStore.Factory at(String httpUrl, String index, RetryPolicy retry) {
        return at(OpenSearchConnection.of(httpUrl), index, retry);
    }

    /** The same for a secured cluster: the connection, secrets unresolved, travels with the job graph. */
    public static MemoryStore.Factory at(OpenSearchConnection connection, String index, RetryPolicy retry) {
        return new Location(connection, index, retry);
    }

    private record Location(OpenSearchConnection connection, String index, RetryPolicy retry) implements MemoryStore.Factory {
        private static final long serialVersionUID = 2L;

        @Override
        public MemoryStore open() {
            return new OpenSearchMemoryStore(connection, index, retry);
        }
    }

    public OpenSearchMemoryStore(String httpUrl, String index, RetryPolicy retry) {
        this(OpenSearchConnection.of(httpUrl), index, retry);
    }

    public OpenSearchMemoryStore(OpenSearchConnection connection, String index, RetryPolicy retry) {
        JacksonJsonpMapper mapper = new JacksonJsonpMapper(VectorJson.MAPPER.copy()
                // what the client's default mapper sets, on the fast float reader and writer
                .setSerializationInclusion(JsonInclude.Include.NON_NULL).findAndRegisterModules());
        this.client = new OpenSearchClient(connection.awsRegion().isEmpty() ? httpTransport(connection, mapper)
                : signingTransport(connection, mapper));
        this.credentials = connection.awsRegion().isEmpty() ? "opensearch.username and opensearch.password"
                : "the AWS credentials and the domain's access policy";
        this.index = index;
        this.retry = retry;
    }

    /** Plain HTTP(S), with basic authentication and the connection's TLS settings when it has them. */
    private static OpenSearchTransport httpTransport(OpenSearchConnection connection, JacksonJsonpMapper mapper) {
        URI uri = connection.uri();
        HttpHost host = new HttpHost(uri.getScheme(), uri.getHost(), uri.getPort());
        ApacheHttpClient5TransportBuilder transport = ApacheHttpClient5TransportBuilder.builder(host).setMapper(mapper);
        SSLContext tls = connection.sslContext();
        if (!connection.username().isEmpty() || tls != null || !connection.verifyHostname()) {
            transport.setHttpClientConfigCallback(http -> {
                if (!connection.username().isEmpty()) {
                    BasicCredentialsProvider credentials = new BasicCredentialsProvider();
                    credentials.setCredentials(new AuthScope(host), new UsernamePasswordCredentials(connection.username(),
                            Secrets.resolve(connection.password()).toCharArray()));
                    http.setDefaultCredentialsProvider(credentials);
                }
                ClientTlsStrategyBuilder strategy = ClientTlsStrategyBuilder.create()
                        .setSslContext(tls != null ? tls : SSLContexts.createSystemDefault())
                        // checked here, by the client's verifier: the built-in check let a foreign IP address pass
                        .setHostVerificationPolicy(HostnameVerificationPolicy.CLIENT)
                        .setHostnameVerifier(connection.verifyHostname() ? new DefaultHostnameVerifier()
                                : NoopHostnameVerifier.INSTANCE);
                return http.setConnectionManager(PoolingAsyncClientConnectionManagerBuilder.create()
                        .setTlsStrategy(strategy.build()).build());
            });
        }
        return transport.build();
    }

    /**
     * HTTPS with every request signed by AWS SigV4 (Amazon OpenSearch Service with IAM), the credentials from the
     * default AWS chain, over the JDK's HTTP client. Host names are always verified.
     */
    private static OpenSearchTransport signingTransport(OpenSearchConnection connection, JacksonJsonpMapper mapper) {
        URI uri = connection.uri();
        if (!"https".equals(uri.getScheme())) {
            throw new IllegalArgumentException(OpenSearchConnection.AWS_REGION + " signs requests to an https URL, not "
                    + connection.url());
        }
        UrlConnectionHttpClient.Builder http = UrlConnectionHttpClient.builder();
        TrustManager[] trusted = connection.trustManagers();
        if (trusted != null) {
            http.tlsTrustManagersProvider(() -> trusted);
        }
        return new AwsSdk2Transport(http.build(), uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort()),
                connection.awsService(), Region.of(connection.awsRegion()), AwsSdk2TransportOptions.builder()
                .setMapper(mapper).setCredentials(DefaultCredentialsProvider.builder().build()).build());
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

    /**
     * The cluster's uuid and this index's uuid, empty when the index does not exist: what a pipeline's state was
     * written against (a new cluster, or the index deleted and made again, has other uuids).
     */
    public List<String> clusterAndIndexUuid() {
        try {
            String cluster = client.info().clusterUuid();
            if (!client.indices().exists(e -> e.index(index)).value()) {
                return List.of(cluster, "");
            }
            var settings = client.indices().getSettings(g -> g.index(index)).result().values().iterator().next();
            return List.of(cluster, settings.settings().index().uuid());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reach OpenSearch for index " + index, e);
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

    @Override
    public WriteStats writeStats() {
        return new WriteStats(retries.sum(), documentsFailed.sum());
    }

    private void write(Map<String, BulkOperation> pending) {
        List<StoreWriteException.ItemFailure> permanent = new ArrayList<>();
        Exception lastError = null;
        for (int attempt = 0; attempt < retry.maxAttempts() && !pending.isEmpty(); attempt++) {
            if (attempt > 0) {
                retries.increment();
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
                    documentsFailed.add(pending.size());
                    throw new StoreWriteException("OpenSearch refused the bulk request with HTTP " + status
                            + (status == 401 || status == 403 ? " (check " + credentials + ")" : "")
                            + ": " + e.getMessage(), List.of(), e);
                }
                javax.net.ssl.SSLException tls = tlsFailure(e);
                if (tls != null) { // a certificate not trusted stays untrusted: no retry
                    documentsFailed.add(pending.size());
                    throw new StoreWriteException("OpenSearch's TLS handshake failed, " + tls.getMessage()
                            + " (opensearch.tls.ca names the authority to trust)", List.of(), e);
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
        documentsFailed.add(permanent.size() + pending.size());
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

    /** The TLS failure in an exception's chain (an untrusted certificate, a host name it does not name), or null. */
    private static javax.net.ssl.SSLException tlsFailure(Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof javax.net.ssl.SSLException tls) {
                return tls;
            }
        }
        return null;
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
        Reads reads = new Reads(tenantId);
        ObjectNode search = reads.search(0, Set.of(), false);
        reads.where(search, Map.of("user_id", userId));
        search.putObject("aggs").putObject("sessions").putObject("terms").put("field", "session_id").put("size", 65_536);
        Supplier<List<String>> sessions = reads.add(search, answer -> {
            List<String> keys = new ArrayList<>();
            answer.aggregations().at("/sessions/buckets").forEach(b -> keys.add(b.get("key").asText()));
            return keys;
        });
        reads.run();
        return sessions.get();
    }

    @Override
    public List<MemoryRecord> get(String tenantId, List<String> ids) {
        if (ids.size() > MAX_IDS_PER_GET) {
            throw new IllegalArgumentException(ids.size() + " ids in one read; at most " + MAX_IDS_PER_GET);
        }
        if (ids.isEmpty()) {
            return List.of();
        }
        Reads reads = new Reads(tenantId);
        ObjectNode search = reads.search(ids.size(), Set.of(), false);
        ArrayNode values = ((ArrayNode) search.at("/query/bool/filter")).addObject().putObject("ids").putArray("values");
        ids.forEach(values::add);
        Supplier<List<ScoredRecord>> hits = reads.add(search, reads::records);
        reads.run();
        return hits.get().stream().map(ScoredRecord::record).toList();
    }

    @Override
    public Page list(String tenantId, Map<String, Object> terms, Set<RecordType> types, int limit, String cursor) {
        Reads reads = new Reads(tenantId);
        ObjectNode search = reads.search(limit + 1, types, false);
        reads.where(search, terms);
        ArrayNode sort = search.putArray("sort");
        sort.addObject().put("ts", "desc");
        sort.addObject().put("_id", "asc");
        if (cursor != null) {
            search.set("search_after", PageCursor.decode(cursor));
        }
        Supplier<SearchAnswer> answer = reads.add(search, a -> a);
        reads.run();
        List<MemoryRecord> records = new ArrayList<>();
        JsonNode last = null;
        for (SearchHit hit : answer.get().hits().hits()) {
            if (records.size() == limit) {
                return new Page(records, PageCursor.encode(last));
            }
            records.add(reads.record(hit));
            last = hit.sort();
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
    public ReadBatch reads(String tenantId) {
        return new Reads(tenantId);
    }

    @Override
    public List<MemoryRecord> turnsAround(String tenantId, Map<String, Set<Integer>> positionsBySession, int radius) {
        Reads reads = new Reads(tenantId);
        ObjectNode search = reads.search(0, Set.of(RecordType.TURN), false);
        ObjectNode bool = (ObjectNode) search.at("/query/bool");
        ArrayNode around = bool.putArray("should");
        int size = 0;
        for (Map.Entry<String, Set<Integer>> session : positionsBySession.entrySet()) {
            for (int position : session.getValue()) {
                ArrayNode filter = around.addObject().putObject("bool").putArray("filter");
                filter.addObject().putObject("term").put("session_id", session.getKey());
                filter.addObject().putObject("range").putObject("position").put("gte", position - radius)
                        .put("lte", position + radius);
                size += 2 * radius + 1;
            }
        }
        if (size == 0) {
            return List.of();
        }
        bool.put("minimum_should_match", 1);
        search.put("size", size);
        Supplier<List<ScoredRecord>> hits = reads.add(search, reads::records);
        reads.run();
        return hits.get().stream().map(ScoredRecord::record).toList();
    }

    @Override
    public List<MemoryRecord> find(String tenantId, Map<String, Object> terms, Set<RecordType> types, int size,
                                   String sortField, boolean ascending) {
        Reads reads = new Reads(tenantId);
        Supplier<List<MemoryRecord>> found = reads.find(terms, types, size, sortField, ascending, true);
        reads.run();
        return found.get();
    }

    @Override
    public long count(String tenantId, Set<RecordType> types) {
        Reads reads = new Reads(tenantId);
        Supplier<SearchAnswer> answer = reads.add(reads.search(0, types, false).put("track_total_hits", true), a -> a);
        reads.run();
        return answer.get().hits().total().path("value").asLong();
    }

    /** The parts of a multi-search answer the store reads; the hits' sources bind straight to maps. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    private record MultiSearchAnswer(List<SearchAnswer> responses) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    private record SearchAnswer(JsonNode error, HitList hits, JsonNode aggregations) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    private record HitList(JsonNode total, List<SearchHit> hits) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    private record SearchHit(@JsonProperty("_id") String id, @JsonProperty("_score") Double score,
                             @JsonProperty("_source") Map<String, Object> source, JsonNode sort) {
    }

    /**
     * Searches of one tenant, routed to its shard and filtered by it, sent as one {@code _msearch}. Every search
     * starts from {@link #search}, whose filter holds the tenant, and every hit read back is checked against it.
     */
    private final class Reads implements ReadBatch {
        private final String tenantId;
        private final List<ObjectNode> searches = new ArrayList<>();
        private final List<Answer<?>> answers = new ArrayList<>();
        private boolean ran;

        Reads(String tenantId) {
            if (tenantId == null || tenantId.isEmpty()) {
                throw new IllegalArgumentException("every query needs a tenant");
            }
            this.tenantId = tenantId;
        }

        /** A search of {@code size} hits of the tenant's records of {@code types}, sources without vectors unless asked. */
        ObjectNode search(int size, Set<RecordType> types, boolean withVectors) {
            ObjectNode search = JSON.createObjectNode().put("size", size);
            if (!withVectors) {
                search.putObject("_source").putArray("excludes").add("embedding");
            }
            ArrayNode filter = search.putObject("query").putObject("bool").putArray("filter");
            filter.addObject().putObject("term").put("tenant_id", tenantId);
            if (!types.isEmpty()) {
                ArrayNode labels = filter.addObject().putObject("terms").putArray("type");
                types.forEach(t -> labels.add(t.label()));
            }
            return search;
        }

        /** Adds a filter per term: a value matches itself, a collection any of its elements. */
        void where(ObjectNode search, Map<String, Object> terms) {
            ArrayNode filter = (ArrayNode) search.at("/query/bool/filter");
            terms.forEach((field, value) -> {
                if (value instanceof Collection<?> any) {
                    ArrayNode values = filter.addObject().putObject("terms").putArray(field);
                    any.forEach(values::addPOJO);
                } else {
                    filter.addObject().putObject("term").putPOJO(field, value);
                }
            });
        }

        <T> Supplier<T> add(ObjectNode search, Function<SearchAnswer, T> reader) {
            if (ran) {
                throw new IllegalStateException("this batch has run");
            }
            Answer<T> answer = new Answer<>(reader);
            searches.add(search);
            answers.add(answer);
            return answer;
        }

        MemoryRecord record(SearchHit hit) {
            MemoryRecord record = MemoryRecord.fromSource(hit.id(), hit.source());
            if (!tenantId.equals(record.tenantId())) {
                throw new IllegalStateException("tenant filter breached: " + hit.id() + " of " + record.tenantId());
            }
            return record;
        }

        List<ScoredRecord> records(SearchAnswer answer) {
            List<ScoredRecord> out = new ArrayList<>();
            for (SearchHit hit : answer.hits().hits()) {
                out.add(new ScoredRecord(record(hit), hit.score() == null ? 0 : hit.score()));
            }
            return out;
        }

        @Override
        public Supplier<List<ScoredRecord>> bm25(String query, int k, Set<RecordType> types) {
            ObjectNode search = search(k, types, true);
            ((ObjectNode) search.at("/query/bool")).putObject("must").putObject("match").put("text.en", query);
            return add(search, this::records);
        }

        @Override
        public Supplier<List<ScoredRecord>> knn(float[] vector, int k, Set<RecordType> types) {
            ObjectNode search = search(k, types, false);
            // the tenant filter inside the k-NN query makes k hits of the tenant come back; the outer one, redundant
            // with it, keeps the tenant guarantee in the one place every search starts from
            ObjectNode knn = ((ObjectNode) search.at("/query/bool")).putObject("must").putObject("knn")
                    .putObject("embedding").put("k", k);
            ArrayNode values = knn.putArray("vector");
            for (float f : vector) {
                values.add(f);
            }
            knn.putObject("filter").set("bool", search(0, types, false).at("/query/bool").deepCopy());
            return add(search, answer -> {
                List<ScoredRecord> hits = new ArrayList<>();
                for (SearchHit hit : answer.hits().hits()) {
                    // Lucene scores a cosine-space hit (1 + cos) / 2
                    hits.add(new ScoredRecord(record(hit), 2 * hit.score() - 1));
                }
                return hits;
            });
        }

        @Override
        public Supplier<List<MemoryRecord>> find(Map<String, Object> terms, Set<RecordType> types, int size,
                                                 String sortField, boolean ascending) {
            return find(terms, types, size, sortField, ascending, false);
        }

        Supplier<List<MemoryRecord>> find(Map<String, Object> terms, Set<RecordType> types, int size, String sortField,
                                          boolean ascending, boolean withVectors) {
            ObjectNode search = search(size, types, withVectors);
            where(search, terms);
            if (sortField != null) {
                search.putArray("sort").addObject().put(sortField, ascending ? "asc" : "desc");
            }
            return add(search, answer -> records(answer).stream().map(ScoredRecord::record).toList());
        }

        @Override
        public Supplier<Stamp> stamp(Map<String, Object> terms, Set<RecordType> types) {
            ObjectNode search = search(0, types, false).put("track_total_hits", true);
            where(search, terms);
            ObjectNode aggs = search.putObject("aggs");
            for (String field : List.of("doc_version", "tier", "position", "tokens")) {
                aggs.putObject(field).putObject("sum").put("field", field);
            }
            return add(search, answer -> new Stamp(answer.hits().total().path("value").asLong(),
                    sum(answer, "doc_version"), sum(answer, "tier"), sum(answer, "position"), sum(answer, "tokens")));
        }

        @Override
        public Supplier<List<Document>> documents() {
            ObjectNode search = search(0, EnumSet.of(RecordType.INVARIANT, RecordType.LORE), false);
            ObjectNode agents = search.putObject("aggs").putObject("agents");
            agents.putObject("terms").put("field", "agent_id").put("size", 1000).putObject("order").put("_key", "asc");
            ObjectNode paths = agents.putObject("aggs").putObject("paths");
            paths.putObject("terms").put("field", "doc_path").put("size", 1000).putObject("order").put("_key", "asc");
            paths.putObject("aggs").putObject("version").putObject("max").put("field", "doc_version");
            return add(search, answer -> {
                List<Document> documents = new ArrayList<>();
                for (JsonNode agent : answer.aggregations().path("agents").path("buckets")) {
                    for (JsonNode path : agent.path("paths").path("buckets")) {
                        documents.add(new Document(agent.path("key").asText(), path.path("key").asText(),
                                path.path("version").path("value").asLong(), path.path("doc_count").asLong()));
                    }
                }
                return documents;
            });
        }

        private static double sum(SearchAnswer answer, String field) {
            return answer.aggregations().path(field).path("value").asDouble();
        }

        @Override
        public void run() {
            ran = true;
            if (searches.isEmpty()) {
                return; // OpenSearch refuses an empty multi-search
            }
            StringBuilder body = new StringBuilder();
            String header = JSON.createObjectNode().put("index", index).put("routing", tenantId).toString();
            for (ObjectNode search : searches) {
                body.append(header).append('\n').append(search).append('\n');
            }
            MultiSearchAnswer multi;
            try {
                multi = JSON.readValue(send("POST", "/_msearch", body.toString(), 200), MultiSearchAnswer.class);
            } catch (IOException e) {
                throw new UncheckedIOException("unreadable multi-search answer from " + index, e);
            }
            for (int i = 0; i < answers.size(); i++) {
                SearchAnswer answer = multi.responses().get(i);
                if (answer.error() != null) {
                    throw new IllegalStateException("search failed on " + index + ": " + answer.error());
                }
                answers.get(i).fill(answer);
            }
        }
    }

    /** The answer of one queued search, read by its reader once the batch has run. */
    private static final class Answer<T> implements Supplier<T> {
        private final Function<SearchAnswer, T> reader;
        private T value;
        private boolean ready;

        Answer(Function<SearchAnswer, T> reader) {
            this.reader = reader;
        }

        void fill(SearchAnswer answer) {
            value = reader.apply(answer);
            ready = true;
        }

        @Override
        public T get() {
            if (!ready) {
                throw new IllegalStateException("read before its batch ran");
            }
            return value;
        }
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
