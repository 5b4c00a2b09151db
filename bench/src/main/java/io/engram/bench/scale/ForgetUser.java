package io.engram.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.bench.RawHttp;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The forget of a user with thousands of records in the largest tenant, as a product asks for it:
 * {@code DELETE /v1/users/{id}} with the tenant's key, then {@code GET /v1/forgets/{id}} until it says {@code done};
 * then what is left: nothing of the user's, everything of the other users'.
 */
record ForgetUser(RawHttp http, ScaleService service, TenantCounts counts) {

    ObjectNode measure(ScaleCorpus.Tenant tenant, String user, long userSent, long tenantSent, int tenants)
            throws InterruptedException {
        String key = service.key(tenant.id());
        long started = System.nanoTime();
        String forget = http.ok("DELETE", service.url() + "/v1/users/" + user, key, null).path("forget_id").asText();
        JsonNode status;
        long deadline = started + TimeUnit.MINUTES.toNanos(30);
        do {
            TimeUnit.MILLISECONDS.sleep(100);
            status = http.ok("GET", service.url() + "/v1/forgets/" + forget, key, null);
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the forget of " + user + " was not done within 30 minutes: " + status);
            }
        } while (!status.path("status").asText().equals("done"));
        double seconds = (System.nanoTime() - started) / 1e9;
        long left = counts.count(tenant.id(), "user_id", user);
        Map<String, Long> after = counts.byTenant(TenantCounts.SENT_TYPES, tenants);
        return RawHttp.JSON.createObjectNode().put("tenant", tenant.id()).put("user", user).put("user_records_sent", userSent)
                .put("seconds_to_done", seconds).put("records_removed", status.path("records_removed").asLong())
                .put("user_records_left", left)
                .put("tenant_records_left", after.getOrDefault(tenant.id(), 0L))
                .put("tenant_records_expected", tenantSent - userSent);
    }
}
