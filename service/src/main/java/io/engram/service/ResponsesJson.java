package io.engram.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.client.Importer;
import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.retrieval.HybridRetriever;
import io.engram.store.MemoryReader;
import io.engram.store.RecordIds;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/** The JSON shapes of the API's answers (a context and search results are also what the CLI prints). */
public final class ResponsesJson {

    public static final ObjectMapper JSON = new ObjectMapper();

    private ResponsesJson() {
    }

    public static ObjectNode context(String tenantId, AssembledContext c) {
        ObjectNode root = JSON.createObjectNode();
        root.put("tenant_id", tenantId);
        root.put("agent_id", c.agentId());
        root.put("budget_tokens", c.budget());
        root.put("tokens_used", c.tokensUsed());
        root.put("degraded", c.degraded());
        ArrayNode reasons = root.putArray("degraded_reasons");
        c.degradedReasons().forEach(reasons::add);
        ArrayNode included = root.putArray("included");
        for (AssembledContext.Included i : c.included()) {
            included.addObject().put("id", i.item().id()).put("type", i.item().type().label())
                    .put("section", i.section().name().toLowerCase(Locale.ROOT)).put("tokens", i.tokens())
                    .put("score", i.item().score()).put("reason", i.reason()).put("text", i.item().text());
        }
        root.put("prompt", c.promptText());
        ArrayNode excluded = root.putArray("excluded");
        for (AssembledContext.Excluded e : c.excluded()) {
            excluded.addObject().put("id", e.item().id()).put("type", e.item().type().label())
                    .put("section", e.section().name().toLowerCase(Locale.ROOT)).put("tokens", e.item().tokens())
                    .put("reason", e.reason());
        }
        return root;
    }

    public static ObjectNode search(String tenantId, List<HybridRetriever.Result> results) {
        ObjectNode root = JSON.createObjectNode();
        root.put("tenant_id", tenantId);
        ArrayNode array = root.putArray("results");
        for (HybridRetriever.Result r : results) {
            ObjectNode o = array.addObject().put("id", r.record().id()).put("type", r.record().type().label())
                    .put("score", r.score()).put("cosine", r.cosine()).put("fused", r.fused());
            if (r.lexicalRank() != null) {
                o.put("lexical_rank", r.lexicalRank());
            }
            if (r.vectorRank() != null) {
                o.put("vector_rank", r.vectorRank());
            }
            o.put("text", r.record().text());
        }
        return root;
    }

    /** A record as the API shows it: the index's fields without the vector (dates as ISO-8601), and its id. */
    static ObjectNode record(MemoryRecord r) {
        ObjectNode o = JSON.createObjectNode().put("id", r.id());
        o.setAll(JSON.<ObjectNode>valueToTree(r.toSource()));
        o.remove("embedding");
        for (String date : MemoryRecord.MILLIS_DATES) {
            if (o.hasNonNull(date)) {
                o.put(date, Instant.ofEpochMilli(o.get(date).asLong()).toString());
            }
        }
        return o;
    }

    /**
     * One record with the ids of the records its source refs name and of its supersession chain, oldest first
     * ({@code GET /v1/memories/{id}}).
     */
    static ObjectNode recordWithSources(MemoryRecord r, List<String> chain) {
        ObjectNode record = record(r);
        RecordIds.sourceIds(r).forEach(record.putArray("source_ids")::add);
        chain.forEach(record.putArray("chain")::add);
        return record;
    }

    static ObjectNode page(MemoryReads.Page page) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode records = root.putArray("records");
        page.records().forEach(r -> records.add(record(r)));
        root.put("next_cursor", page.nextCursor());
        return root;
    }

    static ObjectNode entities(List<MemoryReader.Entity> entities) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode all = root.putArray("entities");
        for (MemoryReader.Entity e : entities) {
            ObjectNode entity = all.addObject().put("name", e.name()).put("records", e.records());
            ArrayNode beside = entity.putArray("co_mentions");
            e.coMentions().forEach(c -> beside.addObject().put("name", c.name()).put("records", c.records()));
            ArrayNode mentions = entity.putArray("mentioned_by");
            e.mentionedBy().forEach(r -> mentions.add(record(r)));
        }
        return root;
    }

    static ObjectNode written(Writes.Written written) {
        ObjectNode root = JSON.createObjectNode();
        written.accepted().forEach(root.putArray("accepted")::add);
        ArrayNode rejected = root.putArray("rejected");
        written.rejected().forEach(r -> rejected.addObject().put("index", r.index()).put("code", r.code())
                .put("message", r.message()));
        return root;
    }

    /** What an import did: records published per schema, lines skipped, lines rejected (the first ones listed). */
    static ObjectNode imported(Importer.Outcome outcome) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode accepted = root.putObject("accepted");
        outcome.accepted().forEach(accepted::put);
        root.put("skipped", outcome.skipped());
        ArrayNode rejected = root.putArray("rejected");
        outcome.rejected().forEach(r -> rejected.addObject().put("line", r.line()).put("error", r.error()));
        return root.put("rejected_not_listed", outcome.rejectedNotListed());
    }

    static ObjectNode forgetRequested(Operations.ForgetReceipt receipt) {
        return JSON.createObjectNode().put("forget_id", receipt.forgetId()).put("scope", receipt.scope().label())
                .put("target", receipt.target()).put("status", "pending");
    }

    static ObjectNode forget(ForgetLog.Status s) {
        ObjectNode o = JSON.createObjectNode().put("forget_id", s.forgetId()).put("scope", s.scope())
                .put("target", s.target()).put("requested_at", s.requestedAt().toString())
                .put("status", s.completedAt() == null ? "pending" : "done");
        if (s.completedAt() != null) {
            o.put("completed_at", s.completedAt().toString()).put("records_removed", s.recordsRemoved());
        }
        return o;
    }

    /** The error body of the API, and of an MCP tool's error result. */
    static ObjectNode error(ApiError e) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode error = root.putObject("error").put("code", e.code).put("message", e.getMessage());
        e.details.forEach((name, value) -> error.set(name, JSON.valueToTree(value)));
        return root;
    }
}
