package io.engram.model.collapse;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@link CycleMetrics} as a JSON object whose fields are the {@code cycle_metrics} columns; the {@code *_json}
 * columns hold JSON text, as in the table (a reader also accepts them as JSON values). One codec for the
 * detector's state, the alerts topic and {@code ./engram collapse evaluate}.
 */
public final class CycleRows {

    private static final ObjectMapper JSON = new ObjectMapper();

    private CycleRows() {
    }

    public static ObjectNode toJson(CycleMetrics r) {
        ObjectNode o = JSON.createObjectNode();
        o.put("tenant_id", r.tenantId()).put("cycle_id", r.cycleId()).put("ts", r.ts().toString())
                .put("close_reason", r.closeReason()).put("canary_set_id", r.canarySetId())
                .put("canary_count", r.canaryCount()).put("mean_recall", r.meanRecall())
                .put("mean_ndcg", r.meanNdcg()).put("mean_mrr", r.meanMrr())
                .put("canary_ranks_json", canaryRanksJson(r)).put("store_total", r.storeTotal())
                .put("store_by_type_json", JSON.valueToTree(new TreeMap<>(r.storeByType())).toString())
                .put("distinct_content_ratio", r.distinctContentRatio())
                .put("mean_bigram_diversity", r.meanBigramDiversity())
                .put("over_generation_count", r.overGenerationCount()).put("accepted_actions", r.acceptedActions())
                .put("merge_floor_violations", r.mergeFloorViolations())
                .put("generation_guard_refusals", r.generationGuardRefusals())
                .put("alerts_json", JSON.valueToTree(r.alerts()).toString());
        return o;
    }

    public static String canaryRanksJson(CycleMetrics r) {
        ArrayNode ranks = JSON.createArrayNode();
        r.canaryRanks().forEach(e -> ranks.addArray().add(e.getKey()).add(e.getValue()));
        return ranks.toString();
    }

    /** Reads a row; a missing metric column is an error naming it. */
    public static CycleMetrics fromJson(JsonNode o) {
        List<Map.Entry<String, Integer>> ranks = new ArrayList<>();
        for (JsonNode pair : embedded(o, "canary_ranks_json", "[]")) {
            ranks.add(new AbstractMap.SimpleImmutableEntry<>(pair.get(0).asText(), pair.get(1).asInt()));
        }
        Map<String, Long> byType = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = embedded(o, "store_by_type_json", "{}").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            byType.put(e.getKey(), e.getValue().asLong());
        }
        List<String> alerts = new ArrayList<>();
        embedded(o, "alerts_json", "[]").forEach(a -> alerts.add(a.asText()));
        return new CycleMetrics(text(o, "tenant_id"), text(o, "cycle_id"),
                o.hasNonNull("ts") ? Instant.parse(o.get("ts").asText()) : Instant.EPOCH,
                o.path("close_reason").asText("replay"), o.path("canary_set_id").asText(""),
                o.path("canary_count").asInt(ranks.size()), number(o, "mean_recall"), number(o, "mean_ndcg"),
                o.path("mean_mrr").asDouble(0), ranks, (long) number(o, "store_total"), byType,
                number(o, "distinct_content_ratio"), o.path("mean_bigram_diversity").asDouble(1.0),
                o.path("over_generation_count").asLong(0), o.path("accepted_actions").asLong(0),
                o.path("merge_floor_violations").asLong(0), o.path("generation_guard_refusals").asLong(0), alerts);
    }

    public static CycleMetrics fromJson(String line) {
        try {
            return fromJson(JSON.readTree(line));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a JSON object: " + e.getOriginalMessage(), e);
        }
    }

    private static String text(JsonNode o, String field) {
        if (!o.hasNonNull(field)) {
            throw new IllegalArgumentException("row has no " + field);
        }
        return o.get(field).asText();
    }

    private static double number(JsonNode o, String field) {
        if (!o.path(field).isNumber()) {
            throw new IllegalArgumentException("row has no numeric " + field);
        }
        return o.get(field).asDouble();
    }

    private static JsonNode embedded(JsonNode o, String field, String empty) {
        JsonNode v = o.path(field);
        try {
            return v.isTextual() ? JSON.readTree(v.asText()) : v.isMissingNode() || v.isNull() ? JSON.readTree(empty) : v;
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(field + " is not JSON: " + e.getOriginalMessage(), e);
        }
    }
}
