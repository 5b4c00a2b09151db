package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.service.ApiKeys;
import io.engram.service.MemoryService;
import io.engram.service.ServiceConfig;
import io.engram.store.MemoryIndexTemplate;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tenants, keys, quotas and usage on the live embedded product with two replicas of the memory service sharing
 * its PostgreSQL, OpenSearch and Kafka (the product's own, A, and a second, B): what the admin key does on one
 * replica holds on the other within the directory's poll, a deleted tenant's records leave the index through the
 * pipeline's forget path, and a key made on a service killed with -9 before its first use still works.
 */
class TenantsLiveTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration SOON = Duration.ofSeconds(10);
    private static final Duration INDEXED = Duration.ofSeconds(90);
    private static LiveProduct product;
    private static MemoryService replicaB;
    private static String admin;
    private final HttpClient http = HttpClient.newHttpClient();

    private record Answer(int status, JsonNode body) {
        String code() {
            return body.at("/error/code").asText();
        }
    }

    @BeforeAll
    static void start() throws Exception {
        Properties fast = new Properties();
        fast.setProperty("checkpoint.interval", "1s");
        product = LiveProduct.start(Optional.empty(), 0, List.of("globex"), fast, line -> { });
        admin = product.keys().get(ApiKeys.ADMIN_GRANT);
        replicaB = MemoryService.start(ServiceConfig.from(product.pipeline(), Map.of()).withListen("127.0.0.1", 0),
                ApiKeys.of(Map.of(ApiKeys.ADMIN_GRANT, admin)));
    }

    @AfterAll
    static void stop() throws Exception {
        if (replicaB != null) {
            replicaB.close();
        }
        if (product != null) {
            product.close();
        }
    }

    private static String a() {
        return product.apiUrl();
    }

    private static String b() {
        return "http://127.0.0.1:" + replicaB.port();
    }

    private Answer call(String url, String method, String path, String key, String tenant, Object body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + path)).header("Authorization", "Bearer " + key)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(
                        body.toString()));
        if (tenant != null) {
            request.header("X-Engram-Tenant", tenant);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response.body().isBlank() ? null : JSON.readTree(response.body()));
    }

    private JsonNode ok(Answer answer, int status) {
        assertThat(answer.status()).as("%s", answer.body()).isEqualTo(status);
        return answer.body();
    }

    private String makeTenant(String url, String tenant, ObjectNode quotas) throws Exception {
        ObjectNode body = JSON.createObjectNode().put("tenant_id", tenant);
        if (quotas != null) {
            body.set("quotas", quotas);
        }
        ok(call(url, "POST", "/v1/admin/tenants", admin, null, body), 201);
        return makeKey(url, tenant, "agent", List.of("read", "write", "forget", "admin"), null);
    }

    private String makeKey(String url, String tenant, String name, List<String> scopes, Instant expires) throws Exception {
        ObjectNode body = JSON.createObjectNode().put("name", name);
        scopes.forEach(body.putArray("scopes")::add);
        if (expires != null) {
            body.put("expires_at", expires.toString());
        }
        return ok(call(url, "POST", "/v1/keys", admin, tenant, body), 201).get("secret").asText();
    }

    private static ObjectNode memory(String id, String text) {
        return JSON.createObjectNode().put("memory_id", id).put("text", text);
    }

    private Set<String> searchIds(String url, String key, String query) throws Exception {
        JsonNode results = ok(call(url, "POST", "/v1/search", key, null, JSON.createObjectNode().put("query", query)
                .put("k", 50)), 200).get("results");
        java.util.TreeSet<String> ids = new java.util.TreeSet<>();
        results.forEach(r -> ids.add(r.get("id").asText()));
        return ids;
    }

    @Test
    void aTenantMadeOnOneReplicaIsServedOnTheOtherAndItsKeysDoWhatTheirScopesSayOnBoth() throws Exception {
        String initech = makeTenant(a(), "initech", null);
        long made = System.nanoTime();
        Polling.await("B serves the key made on A", SOON, () -> call(b(), "GET", "/v1/memories", initech, null, null)
                .status() == 200);
        System.out.printf("replica B served a key made on A after %d ms%n", (System.nanoTime() - made) / 1_000_000);
        ok(call(b(), "POST", "/v1/memories", initech, null, memory("m-1", "the stapler is red")), 202);
        Polling.await("written on B, found on A", INDEXED, () -> searchIds(a(), initech, "stapler").contains("initech/m-1"));

        String reader = makeKey(a(), "initech", "reader", List.of("read"), null);
        Polling.await("B knows the reader", SOON, () -> call(b(), "GET", "/v1/memories", reader, null, null).status() == 200);
        for (String url : List.of(a(), b())) {
            assertThat(call(url, "POST", "/v1/memories", reader, null, memory("m-x", "planted")).code())
                    .isEqualTo("insufficient_scope");
            assertThat(call(url, "DELETE", "/v1/users/u1", reader, null, null).code()).isEqualTo("insufficient_scope");
            assertThat(searchIds(url, reader, "stapler")).contains("initech/m-1");
        }

        String keyId = ok(call(a(), "GET", "/v1/keys", admin, "initech", null), 200).get("keys").get(1).get("key_id").asText();
        ok(call(b(), "DELETE", "/v1/keys/" + keyId, admin, "initech", null), 204);
        assertThat(call(b(), "GET", "/v1/memories", reader, null, null).status()).as("revoked where revoked").isEqualTo(401);
        Polling.await("A refuses the key revoked on B", SOON, () -> call(a(), "GET", "/v1/memories", reader, null, null)
                .status() == 401);

        Instant expires = Instant.now().plusSeconds(3);
        String brief = makeKey(a(), "initech", "brief", List.of("read"), expires);
        Polling.await("B knows the brief key", SOON, () -> call(b(), "GET", "/v1/memories", brief, null, null).status() == 200);
        Polling.await("the brief key expired", SOON, () -> Instant.now().isAfter(expires));
        for (String url : List.of(a(), b())) {
            assertThat(call(url, "GET", "/v1/memories", brief, null, null).status()).as("expired on " + url).isEqualTo(401);
        }
    }

    @Test
    void aQuotaReachedRefusesTheNextWriteAndEveryAcceptedRecordIsSearchable() throws Exception {
        String hooli = makeTenant(a(), "hooli", JSON.createObjectNode().put("records", 3));
        Polling.await("B serves hooli", SOON, () -> call(b(), "GET", "/v1/memories", hooli, null, null).status() == 200);
        for (int i = 0; i < 3; i++) {
            ok(call(i % 2 == 0 ? a() : b(), "POST", "/v1/memories", hooli, null, memory("q-" + i, "quota note " + i)), 202);
        }
        Polling.await("three notes searchable", INDEXED, () -> searchIds(a(), hooli, "quota note").size() == 3);
        Polling.await("both replicas count them", SOON, () -> call(b(), "POST", "/v1/memories", hooli, null,
                memory("q-3", "quota note 3")).code().equals("quota_exceeded"));
        Answer refused = call(a(), "POST", "/v1/memories", hooli, null, memory("q-4", "quota note 4"));
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.body().get("error").toString()).contains("\"quota\":\"records\"", "\"limit\":3", "\"usage\":3");
        assertThat(searchIds(a(), hooli, "quota note")).containsExactly("hooli/q-0", "hooli/q-1", "hooli/q-2");
    }

    @Test
    void usageRowsAreWhatWasSentOnBothReplicas() throws Exception {
        String umbrella = makeTenant(a(), "umbrella", null);
        // a call that is not a read, so that the reads counted are the test's own
        Polling.await("B serves umbrella", SOON, () -> call(b(), "GET", "/v1/keys", umbrella, null, null).status() == 200);
        List<String> texts = List.of("café crème", "the vault code is 4711", "ünïcödé ✓");
        long bytes = 0;
        for (int i = 0; i < texts.size(); i++) {
            ok(call(i == 1 ? b() : a(), "POST", "/v1/memories", umbrella, null, memory("u-" + i, texts.get(i))), 202);
            bytes += texts.get(i).getBytes(StandardCharsets.UTF_8).length;
        }
        ok(call(b(), "POST", "/v1/context", umbrella, null, JSON.createObjectNode().put("query", "vault")
                .put("budget_tokens", 200)), 200);
        String day = LocalDate.now(ZoneOffset.UTC).toString();
        String expected = "{\"tenant_id\":\"umbrella\",\"day\":\"" + day + "\",\"records_written\":3,\"bytes_written\":"
                + bytes + ",\"writes\":3,\"reads\":1,\"contexts\":1,\"forgets\":0";
        Polling.await("both replicas' usage in the ledger", SOON, () -> ok(call(a(), "GET", "/v1/usage", umbrella, null,
                null), 200).at("/usage/0").toString().startsWith(expected), () -> call(a(), "GET", "/v1/usage", umbrella,
                null, null).body() + " is not " + expected);
        try (Connection c = DriverManager.getConnection(product.pipeline().getProperty("postgres.url"), "postgres", "");
             ResultSet rs = c.createStatement().executeQuery("SELECT records_written, bytes_written FROM usage_daily"
                     + " WHERE tenant_id = 'umbrella'")) {
            assertThat(rs.next()).isTrue();
            assertThat(List.of(rs.getLong(1), rs.getLong(2))).containsExactly(3L, bytes);
        }
    }

    @Test
    void aDeletedTenantLeavesNoRecordItsKeysStopAtOnceAndAnotherTenantIsUntouched() throws Exception {
        String doomed = makeTenant(a(), "doomed", null);
        String globex = product.keys().get("globex");
        ObjectNode turns = JSON.createObjectNode();
        for (int i = 0; i < 6; i++) {
            turns.withArray("records").addObject().put("session_id", "s1").put("user_id", "u1").put("turn_id", "t" + i)
                    .put("seq", i).put("role", i % 2 == 0 ? "user" : "assistant").put("text", "doomed turn " + i);
        }
        ok(call(a(), "POST", "/v1/turns", doomed, null, turns), 202);
        ok(call(a(), "POST", "/v1/memories", doomed, null, memory("d-1", "doomed memory")), 202);
        ok(call(a(), "POST", "/v1/memories", globex, null, memory("g-1", "globex survives")), 202);
        Polling.await("both tenants indexed", INDEXED, () -> stored("doomed") >= 7 && stored("globex") >= 1);
        long globexBefore = stored("globex");

        JsonNode deletion = ok(call(b(), "DELETE", "/v1/admin/tenants/doomed", admin, null, null), 202);
        assertThat(call(b(), "GET", "/v1/memories", doomed, null, null).status()).as("at once, where deleted").isEqualTo(401);
        Polling.await("A refuses the deleted tenant's key", SOON, () -> call(a(), "GET", "/v1/memories", doomed, null, null)
                .status() == 401);
        String forgetId = deletion.get("forget_id").asText();
        Polling.await("the tenant's forget done", INDEXED, () -> "done".equals(ok(call(a(), "GET", "/v1/forgets/" + forgetId,
                product.keys().get(ApiKeys.ADMIN_GRANT), "doomed", null), 200).get("status").asText()));
        assertThat(stored("doomed")).as("no record of the deleted tenant").isZero();
        assertThat(stored("globex")).isEqualTo(globexBefore);
        assertThat(searchIds(a(), globex, "globex survives")).contains("globex/g-1");
        assertThat(ok(call(a(), "GET", "/v1/admin/tenants/doomed", admin, null, null), 200).get("status").asText())
                .isEqualTo("deleting");
    }

    private long stored(String tenant) {
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(product.pipeline().getProperty("opensearch.url"),
                product.pipeline().getProperty("opensearch.index", MemoryIndexTemplate.INDEX), RetryPolicy.DEFAULT)) {
            store.refresh();
            return store.find(tenant, Map.of(), Set.of(), 1000, null, true).stream().map(MemoryRecord::id).count();
        }
    }

    /**
     * A service process killed with -9 right after it made a key: the key was committed before it was shown, so it
     * works on the other replica and on the killed one's successor.
     */
    @Test
    void aKeyMadeByAServiceKilledBeforeItsFirstUseWorks(@TempDir Path dir) throws Exception {
        Path keyFile = dir.resolve("keys");
        Files.writeString(keyFile, ApiKeys.keyFileLine(admin, ApiKeys.ADMIN_GRANT) + "\n");
        Process serve = serve(dir, keyFile, "first.log");
        String key;
        try {
            String url = announced(dir.resolve("first.log"));
            ok(call(url, "POST", "/v1/admin/tenants", admin, null, JSON.createObjectNode().put("tenant_id", "wayne")), 201);
            key = makeKey(url, "wayne", "agent", List.of("read", "write"), null);
        } finally {
            serve.destroyForcibly(); // SIGKILL: no shutdown hook, no close
            assertThat(serve.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        String k = key;
        Polling.await("A serves the key made on the killed service", SOON, () -> call(a(), "GET", "/v1/memories", k,
                null, null).status() == 200);
        Process again = serve(dir, keyFile, "second.log");
        try {
            ok(call(announced(dir.resolve("second.log")), "POST", "/v1/memories", key, null, memory("w-1", "bat cave")), 202);
        } finally {
            again.destroyForcibly();
            again.waitFor(60, TimeUnit.SECONDS);
        }
    }

    private static Process serve(Path dir, Path keyFile, String log) throws Exception {
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m", "-cp",
                System.getProperty("java.class.path"), EngramCli.class.getName(), "serve", "--config",
                product.settingsFile().toString(), "--api-keys", keyFile.toString(), "--host", "127.0.0.1", "--port", "0")
                .redirectErrorStream(true).redirectOutput(dir.resolve(log).toFile()).start();
    }

    private static String announced(Path log) throws Exception {
        Polling.await("the service announced", Duration.ofSeconds(120), () -> Files.readString(log).contains("api: http://"));
        String line = Files.readAllLines(log).stream().filter(l -> l.startsWith("api: http://")).findFirst().orElseThrow();
        return line.substring("api: ".length()).strip();
    }
}
