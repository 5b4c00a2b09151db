package io.engram.launcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.jobs.retrieval.HybridRetriever;
import io.engram.model.retrieval.AssembledContext;
import java.util.List;
import java.util.Locale;

/** The JSON shapes of a context and of search results, shared by the HTTP API and the CLI. */
final class ResponsesJson {

    static final ObjectMapper JSON = new ObjectMapper();

    private ResponsesJson() {
    }

    static ObjectNode context(String tenantId, AssembledContext c) {
        ObjectNode root = JSON.createObjectNode();
        root.put("tenant_id", tenantId);
        root.put("budget_tokens", c.budget());
        root.put("tokens_used", c.tokensUsed());
        root.put("degraded", c.degraded());
        ArrayNode reasons = root.putArray("degraded_reasons");
        c.degradedReasons().forEach(reasons::add);
        ArrayNode included = root.putArray("included");
        for (AssembledContext.Included i : c.included()) {
            included.addObject().put("id", i.item().id()).put("type", i.item().type().label())
                    .put("section", i.section().name().toLowerCase(Locale.ROOT)).put("tokens", i.item().tokens())
                    .put("score", i.item().score()).put("reason", i.reason()).put("text", i.item().text());
        }
        ArrayNode excluded = root.putArray("excluded");
        for (AssembledContext.Excluded e : c.excluded()) {
            excluded.addObject().put("id", e.item().id()).put("type", e.item().type().label())
                    .put("section", e.section().name().toLowerCase(Locale.ROOT)).put("tokens", e.item().tokens())
                    .put("reason", e.reason());
        }
        return root;
    }

    static ObjectNode search(String tenantId, List<HybridRetriever.Result> results) {
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
}
