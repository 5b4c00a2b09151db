package io.engram.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.service.ResponsesJson;
import java.io.PrintWriter;
import picocli.CommandLine.Option;

/**
 * Where {@code ./engram tenants}, {@code ./engram keys} and {@code ./engram webhooks} find the memory service and the
 * key they call it with; each prints the service's answer as JSON and exits 0 on 2xx, 1 otherwise.
 */
final class AdminOptions {

    @Option(names = "--url", paramLabel = "URL", defaultValue = "${env:ENGRAM_URL:-http://127.0.0.1:8080}",
            description = "The memory service (default: ENGRAM_URL, else ${DEFAULT-VALUE}).")
    String url;

    @Option(names = "--key", paramLabel = "KEY", defaultValue = "${env:ENGRAM_ADMIN_KEY}",
            description = "The admin key `./engram up` prints (default: ENGRAM_ADMIN_KEY); for keys and webhooks, a"
                    + " tenant key with the admin scope works too.")
    String key;

    /** Sends one call and prints its answer; the exit status. */
    int call(PrintWriter out, String method, String path, JsonNode body, String tenant) throws Exception {
        if (key == null || key.isBlank()) {
            throw new Refusal("give --key KEY or set ENGRAM_ADMIN_KEY (./engram up prints the admin key)");
        }
        TenantApi.Answer answer = new TenantApi(url, key).call(method, path, body, tenant);
        out.println(answer.body() == null ? "HTTP " + answer.status()
                : ResponsesJson.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(answer.body()));
        out.flush();
        return answer.status() / 100 == 2 ? 0 : 1;
    }
}
