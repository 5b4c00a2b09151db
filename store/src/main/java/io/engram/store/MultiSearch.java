package io.engram.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.MemoryReader.Document;
import io.engram.store.MemoryReader.ScoredRecord;
import io.engram.store.MemoryReader.Stamp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Searches of one tenant, routed to its shard and sent as one {@code _msearch}. Every search is built by
 * {@link TenantQueries}, whose filter holds the tenant, and every hit read back is checked against it.
 */
final class MultiSearch implements MemoryReader.ReadBatch {

    /** A queued search, the reader of its answer and where that goes. */
    private record Queued<T>(ObjectNode search, Function<SearchAnswer, T> reader, PendingAnswer<T> answer) {
        void fill(SearchAnswer from) {
            answer.fill(reader.apply(from));
        }
    }

    private final OpenSearchHttp http;
    private final String index;
    private final TenantQueries queries;
    private final List<Queued<?>> queued = new ArrayList<>();
    private boolean ran;

    MultiSearch(OpenSearchHttp http, String index, String tenantId) {
        this(http, index, new TenantQueries(tenantId));
    }

    MultiSearch(OpenSearchHttp http, String index, TenantQueries queries) {
        this.http = http;
        this.index = index;
        this.queries = queries;
    }

    TenantQueries queries() {
        return queries;
    }

    /** Queues a search; {@code reader} turns its answer into what the returned holder gives once the batch ran. */
    <T> Supplier<T> add(ObjectNode search, Function<SearchAnswer, T> reader) {
        if (ran) {
            throw new IllegalStateException("this batch has run");
        }
        PendingAnswer<T> answer = new PendingAnswer<>();
        queued.add(new Queued<>(search, reader, answer));
        return answer;
    }

    /** Queues a search whose hits are read as records. */
    Supplier<List<MemoryRecord>> records(ObjectNode search) {
        return add(search, answer -> scored(answer).stream().map(ScoredRecord::record).toList());
    }

    /** A hit as the tenant's record: a hit of another tenant is a breach of the filter, never returned. */
    MemoryRecord record(SearchAnswer.Hit hit) {
        MemoryRecord record = MemoryRecord.fromSource(hit.id(), hit.source());
        if (!queries.tenantId().equals(record.tenantId())) {
            throw new IllegalStateException("tenant filter breached: " + hit.id() + " of " + record.tenantId());
        }
        return record;
    }

    private List<ScoredRecord> scored(SearchAnswer answer) {
        List<ScoredRecord> out = new ArrayList<>();
        for (SearchAnswer.Hit hit : answer.hits().hits()) {
            out.add(new ScoredRecord(record(hit), hit.score() == null ? 0 : hit.score()));
        }
        return out;
    }

    @Override
    public Supplier<List<ScoredRecord>> bm25(String query, int k, Set<RecordType> types) {
        return add(queries.bm25(query, k, types), this::scored);
    }

    @Override
    public Supplier<List<ScoredRecord>> knn(float[] vector, int k, Set<RecordType> types) {
        return add(queries.knn(vector, k, types), answer -> {
            List<ScoredRecord> hits = new ArrayList<>();
            for (SearchAnswer.Hit hit : answer.hits().hits()) {
                // Lucene scores a cosine-space hit (1 + cos) / 2
                hits.add(new ScoredRecord(record(hit), 2 * hit.score() - 1));
            }
            return hits;
        });
    }

    @Override
    public Supplier<List<MemoryRecord>> get(List<String> ids) {
        if (ids.size() > MemoryReader.MAX_IDS_PER_GET) {
            throw new IllegalArgumentException(ids.size() + " ids in one read; at most " + MemoryReader.MAX_IDS_PER_GET);
        }
        return ids.isEmpty() ? List::of : records(queries.ids(ids));
    }

    @Override
    public Supplier<List<MemoryRecord>> turnsAround(Map<String, Set<Integer>> positionsBySession, int radius) {
        ObjectNode search = queries.turnsAround(positionsBySession, radius);
        return search == null ? List::of : records(search);
    }

    @Override
    public Supplier<List<MemoryRecord>> find(Map<String, Object> terms, Set<RecordType> types, int size,
                                             String sortField, boolean ascending) {
        return records(queries.find(terms, types, size, sortField, ascending, false));
    }

    @Override
    public Supplier<Stamp> stamp(Map<String, Object> terms, Set<RecordType> types) {
        return add(queries.stamp(terms, types), answer -> {
            List<String> agents = new ArrayList<>();
            answer.aggregations().path("agents").path("buckets").forEach(b -> agents.add(b.path("key").asText()));
            return new Stamp(answer.total(), answer.aggregate("doc_version"), answer.aggregate("tier"),
                    answer.aggregate("position"), answer.aggregate("tokens"), agents);
        });
    }

    @Override
    public Supplier<List<Document>> documents() {
        return add(queries.documents(), answer -> {
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

    @Override
    public void run() {
        ran = true;
        if (queued.isEmpty()) {
            return; // OpenSearch refuses an empty multi-search
        }
        StringBuilder body = new StringBuilder();
        String header = VectorJson.MAPPER.createObjectNode().put("index", index).put("routing", queries.tenantId())
                .toString();
        for (Queued<?> q : queued) {
            body.append(header).append('\n').append(q.search()).append('\n');
        }
        SearchAnswer.Multi multi;
        try {
            multi = VectorJson.MAPPER.readValue(http.send("POST", "/_msearch", body.toString(), 200), SearchAnswer.Multi.class);
        } catch (IOException e) {
            throw new UncheckedIOException("unreadable multi-search answer from " + index, e);
        }
        for (int i = 0; i < queued.size(); i++) {
            SearchAnswer answer = multi.responses().get(i);
            if (answer.error() != null) {
                throw new IllegalStateException("search failed on " + index + ": " + answer.error());
            }
            queued.get(i).fill(answer);
        }
    }
}
