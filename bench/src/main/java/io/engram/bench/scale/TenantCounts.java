package io.engram.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.bench.RawHttp;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How many records of given types each tenant holds in an index, in one aggregation request (not one count per
 * tenant), after a refresh: what the bench compares with what it sent, and polls while the job loads.
 */
final class TenantCounts {

    /** The records a gateway sends one for one: turns and memories. */
    static final List<String> SENT_TYPES = List.of("turn", "memory", "lesson");

    private final RawHttp http;
    private final String indexUrl;

    TenantCounts(RawHttp http, String openSearch, String index) {
        this.http = http;
        this.indexUrl = openSearch + "/" + index;
    }

    /** Records of {@code types} per tenant ({@code tenants}: at most how many tenants there are). */
    Map<String, Long> byTenant(Collection<String> types, int tenants) {
        http.post(indexUrl + "/_refresh", null);
        ObjectNode search = RawHttp.JSON.createObjectNode().put("size", 0).put("track_total_hits", true);
        search.putObject("query").putObject("terms").set("type", RawHttp.JSON.valueToTree(types));
        search.putObject("aggs").putObject("tenants").putObject("terms").put("field", "tenant_id").put("size", tenants + 10);
        Map<String, Long> out = new HashMap<>();
        for (JsonNode bucket : http.post(indexUrl + "/_search", search).at("/aggregations/tenants/buckets")) {
            out.put(bucket.get("key").asText(), bucket.get("doc_count").asLong());
        }
        return out;
    }

    /** Records of {@code types} in the index, all tenants; 0 while the index does not exist. */
    long total(Collection<String> types) {
        RawHttp.Answer refreshed = http.send("POST", indexUrl + "/_refresh", null, null);
        if (refreshed.status() == 404) {
            return 0;
        }
        ObjectNode count = RawHttp.JSON.createObjectNode();
        count.putObject("query").putObject("terms").set("type", RawHttp.JSON.valueToTree(types));
        return http.post(indexUrl + "/_count", count).path("count").asLong();
    }

    /** A tenant's records matching one more field, e.g. a user's. */
    long count(String tenant, String field, String value) {
        http.post(indexUrl + "/_refresh", null);
        ObjectNode count = RawHttp.JSON.createObjectNode();
        var filter = count.putObject("query").putObject("bool").putArray("filter");
        filter.addObject().putObject("term").put("tenant_id", tenant);
        filter.addObject().putObject("term").put(field, value);
        return http.post(indexUrl + "/_count?routing=" + tenant, count).path("count").asLong();
    }
}
