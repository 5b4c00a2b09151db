package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.jobs.store.OpenSearchMemoryStore;
import io.engram.jobs.store.RetryPolicy;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.embed.OnnxEmbedder;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedServicesExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

/** The HTTP API and the recall CLI: a key of tenant A never reads tenant B, whatever the texts share. */
@ExtendWith(EmbeddedServicesExtension.class)
class ReadApiTest {

    private static final String INDEX = "engram-memories-api-test";
    private static final String KEY_A = "key-of-tenant-a-0123456789";
    private static final String KEY_B = "key-of-tenant-b-9876543210";
    private static final List<String> TEXTS = List.of("The deploy key lives in the vault.",
            "Lunch is at noon on Fridays.", "Melanie painted a lake sunrise.", "The cat is called Miso.",
            "Support group meets on Thursday evenings.", "Caroline went hiking last weekend.");

    private static String openSearchUrl;
    private static Retrieval retrieval;
    private static HttpApi api;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start(EmbeddedOpenSearch openSearch) throws Exception {
        openSearchUrl = openSearch.httpUrl();
        try (OnnxEmbedder embedder = EmbeddingModel.ALL_MINILM_L6_V2.open();
             OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearchUrl, INDEX, RetryPolicy.DEFAULT)) {
            store.ensureIndex(EmbeddingModel.ALL_MINILM_L6_V2.id(), embedder.dimension());
            var vectors = embedder.embedDocuments(TEXTS);
            List<MemoryRecord> records = new ArrayList<>();
            for (String tenant : List.of("tenant-a", "tenant-b", "tenant-c")) {
                for (int i = 0; i < TEXTS.size(); i++) {
                    records.add(MemoryRecord.of(tenant + "-m" + i, tenant, RecordType.MEMORY, TEXTS.get(i),
                            Instant.parse("2026-11-01T00:00:00Z")).embedding(vectors.get(i).vector()).session("s1")
                            .user("u1").position(i).tokens(8).build());
                }
            }
            store.upsert(records);
            store.refresh();
        }
        retrieval = Retrieval.open(openSearchUrl, INDEX, EmbeddingModel.ALL_MINILM_L6_V2);
        api = new HttpApi(0, new ApiKeys(Map.of(KEY_A, "tenant-a", KEY_B, "tenant-b")), retrieval,
                Clock.fixed(Instant.parse("2026-11-02T00:00:00Z"), ZoneOffset.UTC));
    }

    @AfterAll
    static void stop() {
        api.close();
        retrieval.close();
    }

    private HttpResponse<String> post(String path, String key, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + path))
                .POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json");
        if (key != null) {
            request.header("Authorization", "Bearer " + key);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(HttpResponse<String> response) throws Exception {
        return ResponsesJson.JSON.readTree(response.body());
    }

    @Test
    void noKeyOrAWrongKeyIsUnauthorized() throws Exception {
        HttpResponse<String> none = post("/v1/search", null, "{\"query\":\"vault\"}");
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(json(none).at("/error/code").asText()).isEqualTo("unauthorized");
        assertThat(post("/v1/search", KEY_A + "x", "{\"query\":\"vault\"}").statusCode()).isEqualTo(401);
        assertThat(post("/v1/context", "tenant-a", "{\"query\":\"vault\",\"budget_tokens\":100}").statusCode())
                .isEqualTo(401);
    }

    @Test
    void eachKeyReadsOnlyItsTenantThroughEveryEndpoint() throws Exception {
        Random random = new Random(3);
        for (int round = 0; round < 20; round++) {
            String key = random.nextBoolean() ? KEY_A : KEY_B;
            String tenant = key.equals(KEY_A) ? "tenant-a" : "tenant-b";
            String query = TEXTS.get(random.nextInt(TEXTS.size()));
            HttpResponse<String> search = post("/v1/search", key, "{\"query\":\"" + query + "\",\"k\":20}");
            assertThat(search.statusCode()).isEqualTo(200);
            JsonNode results = json(search).path("results");
            assertThat(results.size()).isEqualTo(TEXTS.size());
            results.forEach(r -> assertThat(r.path("id").asText()).startsWith(tenant + "-"));
            assertThat(results.get(0).path("text").asText()).isEqualTo(query);

            HttpResponse<String> context = post("/v1/context", key,
                    "{\"session_id\":\"s1\",\"query\":\"" + query + "\",\"budget_tokens\":1000}");
            assertThat(context.statusCode()).isEqualTo(200);
            JsonNode c = json(context);
            assertThat(c.path("tenant_id").asText()).isEqualTo(tenant);
            assertThat(c.path("included").size()).isPositive();
            c.path("included").forEach(i -> assertThat(i.path("id").asText()).startsWith(tenant + "-"));
            c.path("excluded").forEach(i -> assertThat(i.path("id").asText()).startsWith(tenant + "-"));
        }
    }

    @Test
    void requestsAreValidatedWithJsonErrors() throws Exception {
        assertThat(post("/v1/search", KEY_A, "{not json").statusCode()).isEqualTo(400);
        HttpResponse<String> noBudget = post("/v1/context", KEY_A, "{\"query\":\"x\"}");
        assertThat(noBudget.statusCode()).isEqualTo(400);
        assertThat(json(noBudget).at("/error/message").asText()).contains("budget_tokens");
        assertThat(post("/v1/search", KEY_A, "{\"query\":\"x\",\"k\":1000}").statusCode()).isEqualTo(400);
        assertThat(post("/v1/search", KEY_A, "{\"query\":\"x\",\"types\":[\"secret\"]}").statusCode()).isEqualTo(400);
        HttpResponse<String> big = post("/v1/search", KEY_A, "{\"query\":\"" + "x".repeat(70_000) + "\"}");
        assertThat(big.statusCode()).isEqualTo(413);
        assertThat(json(big).at("/error/code").asText()).isEqualTo("request_too_large");
        assertThat(post("/v1/nothing", KEY_A, "{}").statusCode()).isEqualTo(404);
        HttpResponse<String> get = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + api.port() + "/v1/search")).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(get.statusCode()).isEqualTo(405);
    }

    @Test
    void theRecallCliReadsOnlyTheGivenTenant() throws Exception {
        Random random = new Random(9);
        for (String tenant : List.of("tenant-a", "tenant-b", "tenant-c")) {
            StringWriter out = new StringWriter();
            CommandLine cli = EngramCli.commandLine();
            cli.setOut(new PrintWriter(out));
            int exit = cli.execute("recall", "--tenant", tenant, "--query", TEXTS.get(random.nextInt(TEXTS.size())),
                    "--session", "s1", "--budget", "500", "--json", "--opensearch", openSearchUrl, "--index", INDEX);
            assertThat(exit).isZero();
            JsonNode c = ResponsesJson.JSON.readTree(out.toString());
            assertThat(c.path("tenant_id").asText()).isEqualTo(tenant);
            assertThat(c.path("included").size()).isPositive();
            c.path("included").forEach(i -> assertThat(i.path("id").asText()).startsWith(tenant + "-"));
            c.path("excluded").forEach(i -> assertThat(i.path("id").asText()).startsWith(tenant + "-"));
        }
        CommandLine cli = EngramCli.commandLine();
        cli.setErr(new PrintWriter(new StringWriter()));
        assertThat(cli.execute("recall", "--tenant", "Bad Tenant!", "--query", "x", "--opensearch", openSearchUrl))
                .isEqualTo(2);
    }
}
