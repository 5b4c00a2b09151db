package io.engram.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.launcher.LiveProduct;
import io.engram.service.ApiKeys;
import io.engram.service.MemoryService;
import io.engram.service.ServiceConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * {@code bench api --metering}: the same load on two replicas of the memory service over one live product, one
 * with quotas and usage metering on (each tenant given records and bytes quotas far above what the load writes, so
 * every write is counted against them) and one with {@code service.metering=false}, loaded at the same time with
 * the same clients each: run one after the other, two runs of the same replica differed by up to 40 % on this
 * machine (the pipeline, OpenSearch and the clients share its two cores), so only runs side by side compare. A
 * warm-up round, then three; the ratio is on's mean requests per second over off's.
 */
final class MeteringComparison {

    /** One load run against a replica. */
    interface Run {
        ObjectNode against(BenchApiCommand.Target target) throws Exception;
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int ROUNDS = 3;

    private MeteringComparison() {
    }

    static List<ObjectNode> measure(LiveProduct product, Properties settings, int clients, Run run) throws Exception {
        Properties metered = new Properties();
        metered.putAll(product.pipeline());
        metered.putAll(settings);
        Properties plain = new Properties();
        plain.putAll(metered);
        plain.setProperty("service.metering", "false");
        try (MemoryService on = replica(metered, product); MemoryService off = replica(plain, product)) {
            BenchApiCommand.Target onTarget = new BenchApiCommand.Target("http://127.0.0.1:" + on.port(), product.keys());
            BenchApiCommand.Target offTarget = new BenchApiCommand.Target("http://127.0.0.1:" + off.port(), product.keys());
            giveQuotas(onTarget.url(), product);
            together(run, onTarget, offTarget); // warm-up, not counted: the first runs after a start are slower
            List<ObjectNode> runs = new ArrayList<>();
            double onRate = 0;
            double offRate = 0;
            for (int round = 0; round < ROUNDS; round++) {
                List<ObjectNode> both = together(run, onTarget, offTarget);
                runs.add(both.get(0).put("metering", "on"));
                runs.add(both.get(1).put("metering", "off"));
                onRate += rate(both.get(0)) / ROUNDS;
                offRate += rate(both.get(1)) / ROUNDS;
            }
            runs.add(JSON.createObjectNode().put("clients", clients).put("on_requests_per_second", onRate)
                    .put("off_requests_per_second", offRate).put("metering_throughput_ratio", onRate / offRate));
            return runs;
        }
    }

    /** The same load on both replicas at once, so that whatever else the machine does weighs on both alike. */
    private static List<ObjectNode> together(Run run, BenchApiCommand.Target on, BenchApiCommand.Target off)
            throws Exception {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            java.util.concurrent.Future<ObjectNode> metered = pool.submit(() -> run.against(on));
            java.util.concurrent.Future<ObjectNode> plain = pool.submit(() -> run.against(off));
            return List.of(metered.get(), plain.get());
        } finally {
            pool.shutdown();
        }
    }

    private static double rate(ObjectNode run) {
        return run.get("requests_per_second").asDouble();
    }

    private static MemoryService replica(Properties settings, LiveProduct product) throws Exception {
        return MemoryService.start(ServiceConfig.from(settings, Map.of()).withListen("127.0.0.1", 0),
                ApiKeys.of(product.keys()));
    }

    /** Records and bytes quotas on every bench tenant: high, so they are checked and never refuse. */
    private static void giveQuotas(String url, LiveProduct product) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        for (String tenant : product.keys().keySet()) {
            if (!ApiKeys.isTenantId(tenant)) {
                continue;
            }
            ObjectNode body = JSON.createObjectNode().put("tenant_id", tenant);
            body.putObject("quotas").put("records", 100_000_000L).put("text_bytes_per_day", 1_000_000_000_000L);
            HttpResponse<String> made = http.send(HttpRequest.newBuilder(URI.create(url + "/v1/admin/tenants"))
                    .header("Authorization", "Bearer " + product.keys().get(ApiKeys.ADMIN_GRANT))
                    .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
            if (made.statusCode() != 201 && made.statusCode() != 409) {
                throw new IllegalStateException("tenant " + tenant + " not made: " + made.body());
            }
        }
    }
}
