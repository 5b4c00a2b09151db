package io.engram.bench.scale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.bench.RawHttp;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;

/**
 * What an operator looks at, at this many tenants: {@code ./engram status} (a process of its own, JVM start
 * included) and the console's pages — the page itself, the tenant directory, a tenant's health, records and rejects
 * (each asked five times through the service with the operator key; the slowest reported).
 */
record OperatorViews(RawHttp http, ScaleService service) {

    private static final int TIMES = 5;

    ObjectNode measure(RunSettings run, Path work, String jobHeap, String tenant) throws Exception {
        ObjectNode out = RawHttp.JSON.createObjectNode();
        try (Connection c = DriverManager.getConnection(run.properties().getProperty("postgres.url"), "postgres", "");
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(DISTINCT tenant_id) FROM cycle_metrics")) {
            rs.next();
            out.put("tenants_with_cycle_rows", rs.getLong(1)); // what the directory lists
        }
        long started = System.nanoTime();
        try (JobProcess status = JobProcess.start(work.resolve("status.log"), jobHeap, "status", "--config", run.file().toString())) {
            int exit = status.awaitExit(Duration.ofMinutes(5));
            out.put("status_seconds", (System.nanoTime() - started) / 1e9).put("status_exit", exit);
        }
        out.put("console_page_ms", slowest("/console/", null, null));
        out.put("tenants_ms", slowest("/v1/tenants?limit=1000", ScaleService.OPERATOR_KEY, null));
        out.put("tenants_listed", listed(out));
        out.put("health_ms", slowest("/v1/health", ScaleService.OPERATOR_KEY, tenant));
        out.put("records_ms", slowest("/v1/memories?limit=50", ScaleService.OPERATOR_KEY, tenant));
        out.put("rejects_ms", slowest("/v1/rejects", ScaleService.OPERATOR_KEY, tenant));
        return out;
    }

    /** Every tenant of the directory, a page of 1,000 at a time as the console asks: how many, and in how long. */
    private int listed(ObjectNode out) {
        long t0 = System.nanoTime();
        int listed = 0;
        String after = "";
        do {
            JsonNode page = http.ok("GET", service.url() + "/v1/tenants?limit=1000&after="
                    + URLEncoder.encode(after, StandardCharsets.UTF_8), ScaleService.OPERATOR_KEY, null);
            listed += page.path("tenants").size();
            after = page.path("next_after").isTextual() ? page.path("next_after").asText() : "";
        } while (!after.isEmpty());
        out.put("all_tenants_ms", (System.nanoTime() - t0) / 1e6);
        return listed;
    }

    /** The slowest of {@link #TIMES} answers in milliseconds; a failed one is an error. */
    private double slowest(String path, String key, String tenant) {
        double slowest = 0;
        for (int i = 0; i < TIMES; i++) {
            long t0 = System.nanoTime();
            RawHttp.Answer answer = http.send("GET", service.url() + path, key, tenant, null);
            slowest = Math.max(slowest, (System.nanoTime() - t0) / 1e6);
            if (answer.status() != 200) {
                throw new IllegalStateException("GET " + path + " answered " + answer.status() + ": " + answer.body());
            }
        }
        return slowest;
    }
}
