package io.engram.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.bench.RawHttp;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Randomized reads aimed across tenants: a tenant's key asks for another tenant's words (its id and a phrase of its
 * records) by search and by context, and asks for one of the other tenant's records by id. Every record an answer
 * names is looked up in OpenSearch directly: one whose tenant is not the key's is foreign. The bench fails on any.
 */
record CrossTenantReads(RawHttp http, ScaleService service, String indexUrl) {

    ObjectNode measure(List<ScaleCorpus.Tenant> tenants, int reads) {
        Random random = new Random(42);
        long returned = 0;
        long foreign = 0;
        long errors = 0;
        long byIdAnswered = 0;
        for (int i = 0; i < reads; i++) {
            ScaleCorpus.Tenant reader = tenants.get(random.nextInt(tenants.size()));
            ScaleCorpus.Tenant other = tenants.get(random.nextInt(tenants.size()));
            if (other.equals(reader)) {
                other = tenants.get((tenants.indexOf(reader) + 1) % tenants.size());
            }
            String key = service.key(reader.id());
            String text = "what did " + other.id() + " decide in session s" + random.nextInt(3) + " about the budget review";
            List<String> ids = new ArrayList<>();
            switch (i % 3) {
                case 0 -> errors += collect(http.send("POST", service.url() + "/v1/search", key,
                        RawHttp.JSON.createObjectNode().put("query", text).put("k", 20)), "/results", ids);
                case 1 -> errors += collect(http.send("POST", service.url() + "/v1/context", key,
                        RawHttp.JSON.createObjectNode().put("query", text).put("budget_tokens", 2_000)), "/included", ids);
                default -> {
                    String foreignId = other.id() + "/s0/t" + random.nextInt(ScaleCorpus.TURNS_PER_SESSION);
                    RawHttp.Answer answer = http.send("GET", service.url() + "/v1/memories/"
                            + URLEncoder.encode(foreignId, StandardCharsets.UTF_8), key, null);
                    if (answer.status() == 200) {
                        byIdAnswered++;
                        ids.add(answer.json().path("id").asText());
                    } else if (answer.status() != 404) {
                        errors++;
                    }
                }
            }
            returned += ids.size();
            foreign += foreign(reader.id(), ids);
        }
        return RawHttp.JSON.createObjectNode().put("reads", reads).put("records_returned", returned)
                .put("foreign_records", foreign).put("foreign_ids_answered", byIdAnswered).put("errors", errors);
    }

    /** The ids of an answer's records under {@code array}; 1 when the answer was not a success. */
    private static int collect(RawHttp.Answer answer, String array, List<String> ids) {
        if (answer.status() != 200) {
            return 1;
        }
        for (JsonNode r : answer.json().at(array)) {
            ids.add(r.path("id").asText());
        }
        return 0;
    }

    /** How many of {@code ids} OpenSearch holds under another tenant than {@code tenant} (or not at all). */
    private long foreign(String tenant, List<String> ids) {
        if (ids.isEmpty()) {
            return 0;
        }
        ObjectNode search = RawHttp.JSON.createObjectNode().put("size", ids.size());
        search.putObject("_source").putArray("includes").add("tenant_id");
        search.putObject("query").putObject("ids").set("values", RawHttp.JSON.valueToTree(ids));
        long own = 0;
        for (JsonNode hit : http.post(indexUrl + "/_search", search).at("/hits/hits")) {
            if (hit.at("/_source/tenant_id").asText().equals(tenant)) {
                own++;
            }
        }
        return ids.stream().distinct().count() - own;
    }
}
