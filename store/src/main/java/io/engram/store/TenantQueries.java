package io.engram.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.model.facts.Validity;
import io.engram.model.retrieval.AgentScope;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.RecordType;
import java.time.Instant;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The request bodies of one tenant's searches and deletes, each a Jackson tree. Every one starts from
 * {@link #search}, whose filter holds the tenant: the one place a tenant's reads are scoped, and where any
 * filter every read must carry belongs.
 */
final class TenantQueries {

    /** The fields a {@link MemoryReader.Stamp} sums. */
    static final List<String> STAMP_SUMS = List.of("doc_version", "tier", "position", "tokens");

    private final String tenantId;
    /** What retrieval's searches ({@link #bm25}, {@link #knn}) keep: the records valid then; null for every record. */
    private final Validity validity;
    /** Whose documents retrieval's searches keep ({@link AgentScope#sees}); null for every agent's. */
    private final AgentScope agents;

    TenantQueries(String tenantId) {
        this(tenantId, null, null);
    }

    TenantQueries(String tenantId, Validity validity, AgentScope agents) {
        if (tenantId == null || tenantId.isEmpty()) {
            throw new IllegalArgumentException("every query needs a tenant");
        }
        this.tenantId = tenantId;
        this.validity = validity;
        this.agents = agents;
    }

    String tenantId() {
        return tenantId;
    }

    /** A search of {@code size} hits of the tenant's records of {@code types} (all when empty), sources without vectors unless asked. */
    ObjectNode search(int size, Set<RecordType> types, boolean withVectors) {
        ObjectNode search = VectorJson.MAPPER.createObjectNode().put("size", size);
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
    static ObjectNode where(ObjectNode search, Map<String, Object> terms) {
        ArrayNode filter = (ArrayNode) search.at("/query/bool/filter");
        terms.forEach((field, value) -> {
            if (value instanceof Collection<?> any) {
                ArrayNode values = filter.addObject().putObject("terms").putArray(field);
                any.forEach(values::addPOJO);
            } else {
                filter.addObject().putObject("term").putPOJO(field, value);
            }
        });
        return search;
    }

    /** BM25 on the English text, hits with their vectors. */
    ObjectNode bm25(String query, int k, Set<RecordType> types) {
        ObjectNode search = search(k, types, true);
        ObjectNode bool = (ObjectNode) search.at("/query/bool");
        bool.putObject("must").putObject("match").put("text.en", query);
        validOnly(bool);
        seenOnly(bool);
        return search;
    }

    /** Keeps the records {@link #agents} sees: those of no agent, of the agent read for, and of shared documents. */
    private void seenOnly(ObjectNode bool) {
        if (agents == null) {
            return;
        }
        ObjectNode seen = ((ArrayNode) bool.get("filter")).addObject().putObject("bool");
        ArrayNode any = seen.putArray("should");
        any.addObject().putObject("bool").putArray("must_not").addObject().putObject("exists").put("field", "agent_id");
        ArrayNode ids = any.addObject().putObject("terms").putArray("agent_id");
        agents.agents().forEach(ids::add);
        seen.put("minimum_should_match", 1);
    }

    /**
     * Keeps the records valid at {@link #validity}'s instant ({@link Validity#holds}, as a query): none superseded
     * or expired by then, none whose window starts after or ends by then, and asked about the past, none written
     * after it.
     */
    private void validOnly(ObjectNode bool) {
        if (validity == null) {
            return;
        }
        long at = validity.at().toEpochMilli();
        ArrayNode not = bool.putArray("must_not");
        not.addObject().putObject("range").putObject("superseded_at").put("lte", at);
        not.addObject().putObject("range").putObject("valid_from").put("gt", at);
        not.addObject().putObject("range").putObject("valid_until").put("lte", at);
        not.addObject().putObject("range").putObject("expires_at").put("lte", at);
        if (validity.asOf()) {
            ObjectNode later = not.addObject().putObject("bool");
            later.putArray("must_not").addObject().putObject("exists").put("field", "valid_from");
            later.putArray("filter").addObject().putObject("range").putObject("ts").put("gt", at);
        }
    }

    /**
     * k-NN on the vectors. The tenant filter inside the k-NN query makes k hits of the tenant come back; the
     * outer one, redundant with it, keeps the tenant guarantee in {@link #search}.
     */
    ObjectNode knn(float[] vector, int k, Set<RecordType> types) {
        ObjectNode search = search(k, types, false);
        ObjectNode knn = ((ObjectNode) search.at("/query/bool")).putObject("must").putObject("knn")
                .putObject("embedding").put("k", k);
        ArrayNode values = knn.putArray("vector");
        for (float f : vector) {
            values.add(f);
        }
        ObjectNode inner = search(0, types, false).at("/query/bool").deepCopy();
        validOnly(inner);
        seenOnly(inner);
        validOnly((ObjectNode) search.at("/query/bool"));
        seenOnly((ObjectNode) search.at("/query/bool"));
        knn.putObject("filter").set("bool", inner);
        return search;
    }

    /** The records matching every term, sorted by {@code sortField} when it is not null. */
    ObjectNode find(Map<String, Object> terms, Set<RecordType> types, int size, String sortField, boolean ascending,
                    boolean withVectors) {
        ObjectNode search = where(search(size, types, withVectors), terms);
        if (sortField != null) {
            search.putArray("sort").addObject().put(sortField, ascending ? "asc" : "desc");
        }
        return search;
    }

    /** The records of these ids. */
    ObjectNode ids(List<String> ids) {
        ObjectNode search = search(ids.size(), Set.of(), false);
        ArrayNode values = ((ArrayNode) search.at("/query/bool/filter")).addObject().putObject("ids").putArray("values");
        ids.forEach(values::add);
        return search;
    }

    /** How many records of {@code types} the tenant has. */
    ObjectNode count(Set<RecordType> types) {
        return search(0, types, false).put("track_total_hits", true);
    }

    /** The count of the records matching every term, the sums of {@link #STAMP_SUMS} and their first agent ids. */
    ObjectNode stamp(Map<String, Object> terms, Set<RecordType> types) {
        ObjectNode search = where(count(types), terms);
        ObjectNode aggs = search.putObject("aggs");
        for (String field : STAMP_SUMS) {
            aggs.putObject(field).putObject("sum").put("field", field);
        }
        aggs.putObject("agents").putObject("terms").put("field", "agent_id").put("size", MemoryReader.STAMP_AGENTS)
                .putObject("order").put("_key", "asc");
        return search;
    }

    /** The tenant's documents: rule and lore records by agent, then path, with the highest version of each. */
    ObjectNode documents() {
        ObjectNode search = search(0, EnumSet.of(RecordType.INVARIANT, RecordType.LORE), false);
        ObjectNode agents = search.putObject("aggs").putObject("agents");
        agents.putObject("terms").put("field", "agent_id").put("size", 1000).putObject("order").put("_key", "asc");
        ObjectNode paths = agents.putObject("aggs").putObject("paths");
        paths.putObject("terms").put("field", "doc_path").put("size", 1000).putObject("order").put("_key", "asc");
        paths.putObject("aggs").putObject("version").putObject("max").put("field", "doc_version");
        return search;
    }

    /** The most mentioned entities of the records matching every term, with their co-mentions and newest mentions. */
    ObjectNode entities(Map<String, Object> terms, int limit, int coMentions, int mentions) {
        ObjectNode search = where(search(0, Set.of(), false), terms);
        ObjectNode entity = search.putObject("aggs").putObject(MemoryReader.ENTITIES);
        entity.putObject("terms").put("field", MemoryReader.ENTITIES).put("size", limit).putArray("order")
                .add(VectorJson.MAPPER.createObjectNode().put("_count", "desc"))
                .add(VectorJson.MAPPER.createObjectNode().put("_key", "asc"));
        ObjectNode per = entity.putObject("aggs");
        // one more than asked: the entity is always beside itself
        per.putObject("beside").putObject("terms").put("field", MemoryReader.ENTITIES).put("size", coMentions + 1)
                .putArray("order").add(VectorJson.MAPPER.createObjectNode().put("_count", "desc"))
                .add(VectorJson.MAPPER.createObjectNode().put("_key", "asc"));
        if (mentions > 0) {
            ObjectNode newest = per.putObject("newest").putObject("top_hits").put("size", mentions);
            newest.putObject("_source").putArray("excludes").add("embedding");
            newest.putArray("sort").add(VectorJson.MAPPER.createObjectNode().put("ts", "desc"))
                    .add(VectorJson.MAPPER.createObjectNode().put("_id", "asc"));
        }
        return search;
    }

    /** One page of a listing: by ts in {@code order}, then by id; after the sort values of the previous page's last hit. */
    ObjectNode page(Map<String, Object> terms, Set<RecordType> types, MemoryReader.Order order, int size, JsonNode after) {
        ObjectNode search = where(search(size, types, false), terms);
        ArrayNode sort = search.putArray("sort");
        sort.addObject().put("ts", order == MemoryReader.Order.OLDEST_FIRST ? "asc" : "desc");
        sort.addObject().put("_id", "asc");
        if (after != null) {
            search.set("search_after", after);
        }
        return search;
    }

    /** The turns within {@code radius} of the positions, by session; null when no position is given. */
    ObjectNode turnsAround(Map<String, Set<Integer>> positionsBySession, int radius) {
        ObjectNode search = search(0, Set.of(RecordType.TURN), false);
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
            return null;
        }
        bool.put("minimum_should_match", 1);
        search.put("size", size);
        return search;
    }

    /**
     * A page of the sessions in which a user's records appear, in order of session id after {@code afterSession}
     * (null: from the first), as the buckets of the composite aggregation {@code sessions} and its {@code after_key}.
     */
    ObjectNode sessionsOf(String userId, int pageSize, String afterSession) {
        ObjectNode search = where(search(0, Set.of(), false), Map.of("user_id", userId));
        ObjectNode composite = search.putObject("aggs").putObject("sessions").putObject("composite")
                .put("size", pageSize);
        composite.putArray("sources").addObject().putObject("session").putObject("terms").put("field", "session_id");
        if (afterSession != null) {
            composite.putObject("after").put("session", afterSession);
        }
        return search;
    }

    /** A delete-by-query body: the records of these sessions. */
    ObjectNode sessions(List<String> sessionIds) {
        ObjectNode search = search(0, Set.of(), false);
        ArrayNode sessions = ((ArrayNode) search.at("/query/bool/filter")).addObject().putObject("terms")
                .putArray("session_id");
        sessionIds.forEach(sessions::add);
        return deleteBody(search);
    }

    /** A delete-by-query body: the chunks of a document's versions below {@code keepVersion}. */
    ObjectNode olderDocumentVersions(String agentId, String docPath, long keepVersion) {
        ObjectNode search = search(0, Set.of(), false);
        ArrayNode filter = (ArrayNode) search.at("/query/bool/filter");
        filter.addObject().putObject("term").put("agent_id", agentId);
        filter.addObject().putObject("term").put("doc_path", docPath);
        filter.addObject().putObject("terms").putArray("type").add(RecordType.INVARIANT.label()).add(RecordType.LORE.label());
        filter.addObject().putObject("range").putObject("doc_version").put("lt", keepVersion);
        return deleteBody(search);
    }

    /** A delete-by-query body: the records of {@code type} whose {@code ts} is before {@code cutoff}. */
    ObjectNode olderThan(RecordType type, Instant cutoff) {
        ObjectNode search = search(0, Set.of(type), false);
        ((ArrayNode) search.at("/query/bool/filter")).addObject().putObject("range").putObject("ts")
                .put("lt", cutoff.toEpochMilli());
        return deleteBody(search);
    }

    /**
     * A delete-by-query body for a forget: any of what it covers. For a record, its id and what names it in
     * {@code source_refs}, and for a turn ({@code turnId} not null) the records of its session that name its turn
     * id; for a session, its records; for a user, their records (those of their sessions: {@link #sessions}); for
     * the tenant, every record of it, whatever its type.
     */
    ObjectNode forget(ForgetScope scope, String target, String turnSession, String turnId) {
        ObjectNode search = search(0, Set.of(), false);
        if (scope == ForgetScope.TENANT) {
            return deleteBody(search); // the tenant's filter alone covers all it holds
        }
        ObjectNode bool = (ObjectNode) search.at("/query/bool");
        ArrayNode covered = bool.putArray("should");
        switch (scope) {
            case MEMORY -> {
                covered.addObject().putObject("ids").putArray("values").add(target);
                covered.addObject().putObject("term").put("source_refs", target);
                if (turnId == null) { // a gateway names its memories by its own memory_id
                    RecordIds.memoryIdOf(tenantId, target).ifPresent(own -> covered.addObject().putObject("term")
                            .put("source_refs", own));
                } else { // a summary names its turns by turn id, within its session
                    ArrayNode filter = covered.addObject().putObject("bool").putArray("filter");
                    filter.addObject().putObject("term").put("session_id", turnSession);
                    filter.addObject().putObject("term").put("source_refs", turnId);
                }
            }
            case SESSION -> covered.addObject().putObject("term").put("session_id", target);
            case USER -> covered.addObject().putObject("term").put("user_id", target);
        }
        bool.put("minimum_should_match", 1);
        return deleteBody(search);
    }

    /** A search's query alone: what a delete by query searches for. */
    private static ObjectNode deleteBody(ObjectNode search) {
        ObjectNode body = VectorJson.MAPPER.createObjectNode();
        body.set("query", search.get("query"));
        return body;
    }
}
