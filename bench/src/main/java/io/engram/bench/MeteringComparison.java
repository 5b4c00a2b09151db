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
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * {@code bench api --metering}: the same load on two replicas of the memory service over one live product, one
 * with quotas and usage metering on (each tenant given records and bytes quotas far above what the load writes, so
 * every write is counted against them) and one with {@code service.metering=false}, in the order off, on, on, off so
 * that the index growing under the load weighs on both alike. The ratio is on's requests per second over off's.
 */
final class MeteringComparison {

    /** One load run against a replica. */
    interface Run {
        ObjectNode against(BenchApiCommand.Target target) throws Exception;
    }

    private static final ObjectMapper JSON = new ObjectMapper();

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
            ObjectNode off1 = run.against(offTarget).put("metering", "off");
            ObjectNode on1 = run.against(onTarget).put("metering", "on");
            ObjectNode on2 = run.against(onTarget).put("metering", "on");
            ObjectNode off2 = run.against(offTarget).put("metering", "off");
            double onRate = (rate(on1) + rate(on2)) / 2;
            double offRate = (rate(off1) + rate(off2)) / 2;
            ObjectNode summary = JSON.createObjectNode().put("clients", clients).put("on_requests_per_second", onRate)
                    .put("off_requests_per_second", offRate).put("metering_throughput_ratio", onRate / offRate);
            return List.of(off1, on1, on2, off2, summary);
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
