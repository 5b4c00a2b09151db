package io.engram.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.model.facts.Validity;
import io.engram.model.retrieval.AgentScope;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.opensearch.client.json.JsonData;
import org.opensearch.client.opensearch._types.Script;
import org.opensearch.client.opensearch.core.bulk.BulkOperation;

/**
 * The memory index in OpenSearch: idempotent bulk upserts (ids are deterministic, so a replay overwrites), deletes,
 * forgets, and the tenant-scoped reads retrieval needs. Every read and write is routed by tenant and every query
 * carries a {@code tenant_id} filter. The parts live apart: the transport ({@link OpenSearchHttp}), bulk writing
 * with its retries ({@link BulkWriter}), the request bodies ({@link TenantQueries}), the reads of one round trip
 * ({@link MultiSearch}) and the index setup ({@link OpenSearchIndexSetup}); this class joins them.
 */
public final class OpenSearchMemoryStore implements MemoryStore {

    /** The sessions a forget of a user reads and deletes at a time: well within OpenSearch's limits per request. */
    static final int SESSIONS_PER_PAGE = 1_000;
    private static final int DELETES_PER_PAGE = 1_000; // the records a delete by query reads and deletes at a time

    /** Sets or removes a memory's superseder, its other fields untouched (an update of a missing one fails). */
    private static final String SUPERSEDE = "if (params.by == null) { ctx._source.remove('superseded_by');"
            + " ctx._source.remove('superseded_at') } else { ctx._source.superseded_by = params.by;"
            + " ctx._source.superseded_at = params.at }";

    private final OpenSearchHttp http;
    private final String index;
    private final BulkWriter bulk;
    private final OpenSearchIndexSetup setup;
    /** The sessions a forget of a user reads and deletes at a time (a test sets fewer to page through a few). */
    int sessionsPerPage = SESSIONS_PER_PAGE;
    /** Whether a record's document holds the names it mentions: the entity graph, at ~7 % of embedding's CPU. */
    boolean indexEntities = true;

    /** A factory that opens this store on the task manager, for an operator to hold instead of the address. */
    public static MemoryStore.Factory at(String httpUrl, String index, RetryPolicy retry) {
        return at(OpenSearchConnection.of(httpUrl), index, retry);
    }

    /** The same for a secured cluster: the connection, secrets unresolved, travels with the job graph. */
    public static MemoryStore.Factory at(OpenSearchConnection connection, String index, RetryPolicy retry) {
        return at(connection, index, retry, true);
    }

    /** The same, indexing the names each record mentions or not ({@code opensearch.entities}). */
    public static MemoryStore.Factory at(OpenSearchConnection connection, String index, RetryPolicy retry,
                                         boolean entities) {
        return new Location(connection, index, retry, entities);
    }

    private record Location(OpenSearchConnection connection, String index, RetryPolicy retry, boolean entities)
            implements MemoryStore.Factory {
        private static final long serialVersionUID = 3L;

        @Override
        public MemoryStore open() {
            OpenSearchMemoryStore store = new OpenSearchMemoryStore(connection, index, retry);
            store.indexEntities = entities;
            return store;
        }
    }

    public OpenSearchMemoryStore(String httpUrl, String index, RetryPolicy retry) {
        this(OpenSearchConnection.of(httpUrl), index, retry);
    }

    public OpenSearchMemoryStore(OpenSearchConnection connection, String index, RetryPolicy retry) {
        this.http = new OpenSearchHttp(connection);
        this.index = index;
        this.bulk = new BulkWriter(http, retry);
        this.setup = new OpenSearchIndexSetup(http, index);
    }

    /** The index this store reads and writes. */
    public String index() {
        return index;
    }

    @Override
    public void ensureIndex(String embeddingModel, int dimension, VectorEncoding encoding) {
        setup.ensureIndex(embeddingModel, dimension, encoding);
    }

    @Override
    public String embeddingModel() {
        return setup.embeddingModel();
    }

    @Override
    public void refresh() {
        setup.refresh();
    }

    @Override
    public void upsert(List<MemoryRecord> records) {
        Map<String, BulkOperation> pending = new LinkedHashMap<>();
        for (MemoryRecord r : records) {
            pending.put(r.id(), BulkOperation.of(b -> b.index(i -> i.index(index).id(r.id()).routing(r.tenantId())
                    .document(indexed(r, indexEntities)))));
        }
        bulk.write(pending);
    }

    /** The record's document: its source and, for all but windows (whose turns hold them), the names it mentions. */
    static Map<String, Object> indexed(MemoryRecord r, boolean entities) {
        Map<String, Object> source = r.toSource();
        List<String> names = entities ? MemoryReader.mentions(r) : List.of();
        if (!names.isEmpty()) {
            source.put(ENTITIES, names);
        }
        return source;
    }

    @Override
    public void delete(String tenantId, List<String> ids) {
        Map<String, BulkOperation> pending = new LinkedHashMap<>();
        for (String id : ids) {
            pending.put(id, BulkOperation.of(b -> b.delete(d -> d.index(index).id(id).routing(tenantId))));
        }
        bulk.write(pending);
    }

    @Override
    public void supersede(String tenantId, List<Superseded> marks) {
        Map<String, BulkOperation> pending = new LinkedHashMap<>();
        for (Superseded mark : marks) {
            Map<String, JsonData> params = new HashMap<>(); // none: no memory supersedes it any more
            if (mark.by() != null) {
                params.put("by", JsonData.of(mark.by()));
                params.put("at", JsonData.of(mark.at().toEpochMilli()));
            }
            Script script = Script.of(s -> s.inline(i -> i.source(SUPERSEDE).params(params)));
            pending.put(mark.id(), BulkOperation.of(b -> b.update(u -> u.index(index).id(mark.id()).routing(tenantId)
                    .script(script))));
        }
        bulk.write(pending);
    }

    @Override
    public long deleteOlderThan(String tenantId, RecordType type, Instant cutoff) {
        refresh(); // records just written may be covered
        return deleteByQuery(tenantId, new TenantQueries(tenantId).olderThan(type, cutoff));
    }

    @Override
    public long countOlderThan(String tenantId, RecordType type, Instant cutoff) {
        refresh();
        String response = http.send("POST", "/" + index + "/_count?routing=" + URLEncoder.encode(tenantId,
                StandardCharsets.UTF_8), new TenantQueries(tenantId).olderThan(type, cutoff).toString(), 200);
        try {
            return VectorJson.MAPPER.readTree(response).path("count").asLong();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public WriteStats writeStats() {
        return bulk.stats();
    }

    @Override
    public long deleteOlderDocumentVersions(String tenantId, String agentId, String docPath, long keepVersion) {
        refresh(); // a delete-by-query sees only searchable documents, and older chunks may have just been written
        return deleteByQuery(tenantId, new TenantQueries(tenantId).olderDocumentVersions(agentId, docPath, keepVersion));
    }

    @Override
    public long forget(String tenantId, ForgetScope scope, String target) {
        TenantQueries queries = new TenantQueries(tenantId);
        refresh(); // what the forget covers may have just been written: the reads below and the delete must see it
        Optional<MemoryRecord> turn = scope == ForgetScope.MEMORY
                ? get(tenantId, target).filter(r -> r.type() == RecordType.TURN) : Optional.empty();
        String turnId = turn.flatMap(t -> RecordIds.turnIdOf(tenantId, t.sessionId(), target)).orElse(null);
        long sessionRecords = scope == ForgetScope.USER ? forgetSessionsOf(tenantId, target) : 0;
        return sessionRecords + deleteByQuery(tenantId, queries.forget(scope, target,
                turn.map(MemoryRecord::sessionId).orElse(null), turnId));
    }

    /**
     * Deletes the records of every session a user's records appear in (a summary carries its session, not always
     * its user), {@link #sessionsPerPage} sessions at a time; returns how many. Paged, because a user may have
     * more sessions than one aggregation answers ({@code search.max_buckets}, 65,535 by default) or one terms
     * query takes ({@code index.max_terms_count}, 65,536). The user's own records in sessions of a page are deleted
     * with it, and the next page starts after its last session, so each session is read and deleted once.
     */
    private long forgetSessionsOf(String tenantId, String userId) {
        TenantQueries queries = new TenantQueries(tenantId);
        long removed = 0;
        String after = null;
        do {
            String from = after;
            List<String> sessions = searchOnce(tenantId, q -> q.sessionsOf(userId, sessionsPerPage, from),
                    (batch, answer) -> {
                        List<String> keys = new ArrayList<>();
                        answer.aggregations().at("/sessions/buckets").forEach(b -> keys.add(b.at("/key/session").asText()));
                        return keys;
                    });
            if (!sessions.isEmpty()) {
                removed += deleteByQuery(tenantId, queries.sessions(sessions));
            }
            after = sessions.size() < sessionsPerPage ? null : sessions.get(sessions.size() - 1);
        } while (after != null);
        return removed;
    }

    /**
     * Deletes what the body's query matches in the tenant's shard (searchable documents only), a page of ids at a time
     * with the tenant's routing; returns how many. Not {@code _delete_by_query}: it deletes by the routing it reads
     * back, which k-NN 2.19's derived source does not give back, so it would miss the tenant's shard.
     */
    private long deleteByQuery(String tenantId, ObjectNode body) {
        ObjectNode search = body.deepCopy().put("size", DELETES_PER_PAGE).put("_source", false);
        long deleted = 0;
        List<String> previous = List.of();
        while (true) {
            List<String> ids = searchOnce(tenantId, q -> search,
                    (batch, answer) -> answer.hits().hits().stream().map(SearchAnswer.Hit::id).toList());
            if (ids.isEmpty()) {
                return deleted;
            }
            if (ids.equals(previous)) { // routed elsewhere than by the tenant: never delete by a guess
                throw new IllegalStateException("records " + ids + " of tenant " + tenantId + " in " + index
                        + " were not deleted by the tenant's routing");
            }
            previous = ids;
            delete(tenantId, ids);
            refresh(); // the next page's search must not see these again
            deleted += ids.size();
        }
    }

    /**
     * The cluster's uuid and this index's uuid, empty when the index does not exist: what a pipeline's state was
     * written against (a new cluster, or the index deleted and made again, has other uuids).
     */
    public List<String> clusterAndIndexUuid() {
        return setup.clusterAndIndexUuid();
    }

    @Override
    public Page list(String tenantId, Map<String, Object> terms, Set<RecordType> types, Order order, int limit,
                     String cursor) {
        JsonNode after = cursor == null ? null : PageCursor.decode(cursor, order);
        return searchOnce(tenantId, q -> q.page(terms, types, order, limit + 1, after), (batch, answer) -> {
            List<MemoryRecord> records = new ArrayList<>();
            JsonNode last = null;
            for (SearchAnswer.Hit hit : answer.hits().hits()) {
                if (records.size() == limit) {
                    return new Page(records, PageCursor.encode(last, order));
                }
                records.add(batch.record(hit));
                last = hit.sort();
            }
            return new Page(records, null);
        });
    }

    @Override
    public ReadBatch reads(String tenantId) {
        return new MultiSearch(http, index, tenantId);
    }

    @Override
    public ReadBatch reads(String tenantId, Validity validity, AgentScope agents) {
        return new MultiSearch(http, index, new TenantQueries(tenantId, validity, agents));
    }

    @Override
    public List<MemoryRecord> find(String tenantId, Map<String, Object> terms, Set<RecordType> types, int size,
                                   String sortField, boolean ascending) {
        return records(tenantId, q -> q.find(terms, types, size, sortField, ascending, true));
    }

    @Override
    public List<Entity> entities(String tenantId, Map<String, Object> terms, int limit, int coMentions, int mentions) {
        return searchOnce(tenantId, q -> q.entities(terms, limit, coMentions, mentions), (batch, answer) -> {
            List<Entity> entities = new ArrayList<>();
            for (JsonNode bucket : answer.aggregations().path(ENTITIES).path("buckets")) {
                String name = bucket.path("key").asText();
                List<CoMention> beside = new ArrayList<>();
                for (JsonNode other : bucket.path("beside").path("buckets")) {
                    if (!other.path("key").asText().equals(name) && beside.size() < coMentions) {
                        beside.add(new CoMention(other.path("key").asText(), other.path("doc_count").asLong()));
                    }
                }
                List<MemoryRecord> newest = new ArrayList<>();
                for (JsonNode hit : bucket.path("newest").path("hits").path("hits")) {
                    newest.add(batch.record(VectorJson.MAPPER.convertValue(hit, SearchAnswer.Hit.class)));
                }
                entities.add(new Entity(name, bucket.path("doc_count").asLong(), beside, newest));
            }
            return entities;
        });
    }

    @Override
    public long count(String tenantId, Set<RecordType> types) {
        return searchOnce(tenantId, q -> q.count(types), (batch, answer) -> answer.total());
    }

    /** The hits of one search, as the tenant's records. */
    private List<MemoryRecord> records(String tenantId, Function<TenantQueries, ObjectNode> search) {
        MultiSearch batch = new MultiSearch(http, index, tenantId);
        Supplier<List<MemoryRecord>> hits = batch.records(search.apply(batch.queries()));
        batch.run();
        return hits.get();
    }

    /** What {@code reader} reads from the answer of one search. */
    private <T> T searchOnce(String tenantId, Function<TenantQueries, ObjectNode> search, AnswerReader<T> reader) {
        MultiSearch batch = new MultiSearch(http, index, tenantId);
        Supplier<T> answer = batch.add(search.apply(batch.queries()), a -> reader.read(batch, a));
        batch.run();
        return answer.get();
    }

    private interface AnswerReader<T> {
        T read(MultiSearch batch, SearchAnswer answer);
    }

    @Override
    public void close() {
        http.close();
    }
}
