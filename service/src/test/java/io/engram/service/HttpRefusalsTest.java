package io.engram.service;

import static io.engram.service.ServiceHarness.ACME;
import static io.engram.service.ServiceHarness.OPERATOR;
import static org.assertj.core.api.Assertions.assertThat;

import io.engram.service.ServiceHarness.Answer;
import java.io.IOException;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Every refusal of the HTTP API, through real HTTP, over in-memory backends: each is its status with the JSON
 * error body {@code {"error": {"code", "message"}}}, and nothing is published or recorded by a refused request.
 */
class HttpRefusalsTest {

    @AutoClose
    private ServiceHarness api = new ServiceHarness();

    private void refused(Answer answer, int status, String code, String message) {
        assertThat(answer.status()).as("%s", answer.body()).isEqualTo(status);
        assertThat(answer.code()).isEqualTo(code);
        assertThat(answer.message()).contains(message);
    }

    @Test
    void withoutAKnownKeyEveryTenantRouteIs401AndCounted() throws Exception {
        for (Route route : Routes.ALL) {
            if (route.access() != Route.Access.PUBLIC) {
                String path = route.template().replaceAll("\\{[a-z_]+}", "x");
                refused(api.call(route.method(), path, null, "{}"), 401, "unauthorized", "an API key is required");
                refused(api.call(route.method(), path, "not-a-key-of-anyone", "{}"), 401, "unauthorized",
                        "unknown, revoked or expired API key");
            }
        }
        assertThat(api.call("GET", "/metrics", null, null).raw().body()).contains("engram_service_auth_failures_total "
                + 2 * Routes.ALL.stream().filter(r -> r.access() != Route.Access.PUBLIC).count());
        assertThat(api.backends.published).isEmpty();
    }

    @Test
    void aTenantKeyNamingAnotherTenantIs403AndAudited() throws Exception {
        refused(api.call("GET", "/v1/memories", ACME, "globex", null), 403, "forbidden", "the API key's tenant is acme");
        refused(api.call("POST", "/v1/memories", ACME, "{\"tenant_id\": \"globex\", \"text\": \"planted\"}"), 403,
                "forbidden", "a record may not name another");
        refused(api.call("POST", "/v1/turns", ACME, "{\"records\": [{\"text\": \"a\"}, {\"tenant_id\": \"globex\"}]}"),
                403, "forbidden", "a record may not name another");
        assertThat(api.backends.audit).containsExactly("acme cross_tenant GET /v1/memories named tenant globex",
                "acme cross_tenant POST engram.memories.v1 named tenant \"globex\"",
                "acme cross_tenant POST engram.turns.v1 named tenant \"globex\"");
        assertThat(api.backends.published).isEmpty();
    }

    @Test
    void anOperatorKeyReadsANamedTenantAndIsRefusedEverythingElse() throws Exception {
        for (Route route : Routes.ALL) {
            String path = route.template().replaceAll("\\{[a-z_]+}", "x");
            Answer answer = api.call(route.method(), path, OPERATOR, "{}");
            if (route.scope() != null && route.scope() != Scope.READ) {
                refused(answer, 403, "insufficient_scope", "this API key may not " + route.scope().label()
                        + " (its scopes: read)");
                continue;
            }
            switch (route.access()) {
                case TENANT -> refused(answer, 403, "forbidden", "an operator key reads every tenant and writes none: "
                        + route);
                case READ -> refused(answer, 400, "invalid_request", "an operator key names the tenant to read in "
                        + MemoryService.TENANT_HEADER);
                case DIRECTORY -> assertThat(answer.body().get("operator").asBoolean()).isTrue();
                case OPERATOR -> throw new AssertionError(route + ": every operator route needs the admin scope");
                case PUBLIC -> assertThat(answer.status()).as(route.toString()).isIn(200, 404);
            }
        }
        refused(api.call("GET", "/v1/health", OPERATOR, "Not A Tenant!", null), 400, "invalid_request",
                "an operator key names the tenant");
        assertThat(api.call("GET", "/v1/health", OPERATOR, "globex", null).body().get("tenant_id").asText())
                .isEqualTo("globex");
        assertThat(api.backends.published).isEmpty();
    }

    @Test
    void aBodyThatIsNoJsonObjectIs400() throws Exception {
        refused(api.call("POST", "/v1/search", ACME, "{not json"), 400, "invalid_json", "the body is not valid JSON");
        refused(api.call("POST", "/v1/context", ACME, "[1, 2]"), 400, "invalid_json", "the body must be a JSON object");
        refused(api.call("POST", "/v1/memories", ACME, ""), 400, "invalid_json", "the body must be a JSON object");
    }

    @Test
    void aTextThatIsNotUnicodeTextIs400NamingTheFieldAndCharacterAndNothingIsSent() throws Exception {
        Answer lone = api.call("POST", "/v1/memories", ACME, "{\"text\": \"caf\u00e9 \\ud800 noir\"}");
        assertThat(lone.status()).as("%s", lone.body()).isEqualTo(400);
        assertThat(lone.body().get("rejected").get(0).get("code").asText()).isEqualTo("invalid_text");
        assertThat(lone.body().get("rejected").get(0).get("message").asText())
                .isEqualTo("memory.v1: /text: a lone surrogate \\ud800 at character 5");
        Answer nul = api.call("POST", "/v1/turns", ACME, "{\"records\": [{\"session_id\": \"s1\", \"turn_id\": \"t1\","
                + " \"seq\": 1, \"role\": \"user\", \"text\": \"fine\"}, {\"session_id\": \"s1\", \"turn_id\": \"t2\","
                + " \"seq\": 2, \"role\": \"user\", \"text\": \"a\\u0000b\"}]}");
        assertThat(nul.status()).as("one of two accepted").isEqualTo(202);
        assertThat(nul.body().get("rejected").get(0).toString())
                .isEqualTo("{\"index\":1,\"code\":\"invalid_text\",\"message\":\"turn.v1: /text: a NUL character at character 1\"}");
        assertThat(api.backends.published).extracting(p -> p.json().get("text").asText()).containsExactly("fine");
    }

    @Test
    void argumentsOutOfBoundsAre400NamingTheArgument() throws Exception {
        refused(api.call("POST", "/v1/search", ACME, "{}"), 400, "invalid_request", "query is required");
        refused(api.call("POST", "/v1/search", ACME, "{\"query\": 7}"), 400, "invalid_request", "query must be a string");
        refused(api.call("POST", "/v1/search", ACME, "{\"query\": \"" + "q".repeat(4097) + "\"}"), 400, "invalid_request",
                "query is longer than 4096 characters");
        refused(api.call("POST", "/v1/search", ACME, "{\"query\": \"q\", \"k\": 101}"), 400, "invalid_request",
                "k must be an integer from 1 to 100");
        refused(api.call("POST", "/v1/search", ACME, "{\"query\": \"q\", \"types\": \"memory\"}"), 400,
                "invalid_request", "types must be an array of record types");
        refused(api.call("POST", "/v1/search", ACME, "{\"query\": \"q\", \"types\": [\"diary\"]}"), 400,
                "invalid_request", "unknown record type: diary");
        refused(api.call("POST", "/v1/context", ACME, "{\"query\": \"q\"}"), 400, "invalid_request",
                "budget_tokens is required");
        refused(api.call("POST", "/v1/context", ACME, "{\"query\": \"q\", \"budget_tokens\": 1.5}"), 400,
                "invalid_request", "budget_tokens must be an integer from 1 to 200000");
        refused(api.call("GET", "/v1/memories?limit=0", ACME, null), 400, "invalid_request", "limit must be an integer from 1 to 100");
        refused(api.call("GET", "/v1/memories?type=diary", ACME, null), 400, "invalid_request", "unknown record type: diary");
        refused(api.call("GET", "/v1/memories?cursor=elsewhere", ACME, null), 400, "invalid_request", "not a cursor");
        refused(api.call("GET", "/v1/health?limit=1001", ACME, null), 400, "invalid_request", "from 1 to 1000");
        refused(api.call("GET", "/v1/rejects?limit=many", ACME, null), 400, "invalid_request", "from 1 to 100");
        refused(api.call("DELETE", "/v1/sessions/" + "s".repeat(601), ACME, null), 400, "invalid_request",
                "the id must be 1 to 600 characters");
    }

    @Test
    void aBatchIsRecordsAndNothingElseAndAllRejectedIs400WithTheReasons() throws Exception {
        refused(api.call("POST", "/v1/memories", ACME, "{\"records\": {}}"), 400, "invalid_request", "a batch is");
        refused(api.call("POST", "/v1/memories", ACME, "{\"records\": [], \"text\": \"x\"}"), 400, "invalid_request",
                "a batch is");
        refused(api.call("POST", "/v1/memories", ACME, "{\"records\": []}"), 400, "invalid_request", "no records");
        Answer rejected = api.call("POST", "/v1/turns", ACME, "{\"records\": [{\"session_id\": \"s\", \"role\": \"wizard\"},"
                + " 7]}");
        assertThat(rejected.status()).isEqualTo(400);
        assertThat(rejected.body().get("accepted")).isEmpty();
        assertThat(rejected.body().at("/rejected/0/index").asInt()).isZero();
        assertThat(rejected.body().at("/rejected/0/code").asText()).isEqualTo("schema_violation");
        assertThat(rejected.body().at("/rejected/1/code").asText()).isEqualTo("not_an_object");
        assertThat(api.backends.published).isEmpty();
    }

    @Test
    void whatIsNotThereIs404AndAnotherMethodIs405() throws Exception {
        refused(api.call("GET", "/v1/nothing-here", ACME, null), 404, "not_found", "no such endpoint: /v1/nothing-here");
        refused(api.call("GET", "/v1/memories/acme/m-1", ACME, null), 404, "not_found", "no such endpoint");
        refused(api.call("GET", "/v1/memories/m-none", ACME, null), 404, "not_found", "no memory m-none");
        refused(api.call("DELETE", "/v1/memories/acme%2Fm-none", ACME, null), 404, "not_found", "no memory acme/m-none");
        refused(api.call("GET", "/v1/forgets/fgt-none", ACME, null), 404, "not_found", "no forget fgt-none");
        refused(api.call("GET", "/console/secrets.txt", null, null), 404, "not_found", "no such console file");
        refused(api.call("GET", "/v1/turns", ACME, null), 405, "method_not_allowed", "GET is not allowed on /v1/turns");
        refused(api.call("PUT", "/v1/memories/m-1", ACME, "{}"), 405, "method_not_allowed", "PUT is not allowed");
        assertThat(api.backends.forgets).isEmpty();
    }

    @Test
    void aBodyOrBatchOverItsBoundIs413() throws Exception {
        refused(api.call("POST", "/v1/search", ACME, "{\"query\":\"" + "x".repeat(MemoryService.MAX_BODY_BYTES) + "\"}"),
                413, "request_too_large", "limited to " + MemoryService.MAX_BODY_BYTES + " bytes");
        refused(api.call("POST", "/mcp", ACME, "x".repeat(MemoryService.MAX_BODY_BYTES + 1)), 413, "request_too_large",
                "limited to");
        api.close();
        Properties tight = new Properties();
        tight.setProperty("service.max-batch", "2");
        tight.setProperty("limits.document-bytes", "1000");
        api = new ServiceHarness(tight);
        refused(api.call("POST", "/v1/memories", ACME, "{\"records\": [{\"text\": \"a\"}, {\"text\": \"b\"}, {\"text\":"
                + " \"c\"}]}"), 413, "batch_too_large", "at most 2 records");
        refused(api.call("POST", "/v1/documents", ACME, "{\"content\": \"" + "d".repeat(1000 + 64 * 1024) + "\"}"), 413,
                "request_too_large", "limited to " + (1000 + 64 * 1024) + " bytes");
        assertThat(api.backends.published).isEmpty();
    }

    @Test
    void aKeyOverItsRateIs429WithRetryAfter() throws Exception {
        api.close();
        Properties tight = new Properties();
        tight.setProperty("service.rate-limit.per-second", "0.01");
        tight.setProperty("service.rate-limit.burst", "2");
        api = new ServiceHarness(tight);
        List<Integer> statuses = List.of(api.call("GET", "/v1/memories", ACME, null).status(),
                api.call("GET", "/v1/memories", ACME, null).status());
        Answer limited = api.call("GET", "/v1/memories", ACME, null);
        assertThat(statuses).containsExactly(200, 200);
        refused(limited, 429, "rate_limited", "too many reads for tenant acme (0.01 per second)");
        assertThat(Long.parseLong(limited.raw().headers().firstValue("Retry-After").orElseThrow())).isBetween(1L, 100L);
        assertThat(api.call("GET", "/v1/memories", ServiceHarness.GLOBEX, null).status()).as("another tenant").isEqualTo(200);
        assertThat(api.call("GET", "/metrics", null, null).raw().body()).contains("engram_service_rate_limited_total 1");
    }

    /** An MCP tools/call result: its text, or its error's {@code code: message}. */
    private String tool(String name, String arguments) throws Exception {
        String call = "{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": \"tools/call\", \"params\": {\"name\": \"" + name
                + "\", \"arguments\": " + arguments + "}}";
        Answer answer = api.call("POST", "/mcp", ACME, call);
        assertThat(answer.status()).isEqualTo(200);
        return answer.body().at("/result/content/0/text").asText();
    }

    @Test
    void theMcpToolsRefuseAsTheApiDoesAndABodyThatIsNoMessageIsAParseError() throws Exception {
        Answer unreadable = api.call("POST", "/mcp", ACME, "{not json");
        assertThat(unreadable.status()).isEqualTo(400);
        assertThat(unreadable.body().at("/error/code").asInt()).isEqualTo(-32700);
        assertThat(tool("remember", "{\"text\": \"x\", \"role\": \"assistant\"}"))
                .isEqualTo("invalid_request: role is for a turn of a session: give session_id too");
        assertThat(tool("remember", "{\"text\": \"x\", \"memory_id\": \"\"}")).contains("/memory_id");
        assertThat(tool("forget", "{\"scope\": \"memory\", \"id\": \"m-none\"}")).isEqualTo("not_found: no memory m-none");
        api.backends.kafkaDown = true;
        assertThat(tool("remember", "{\"text\": \"x\"}")).startsWith("kafka_unavailable: ");
        api.backends.postgresFailure = new SQLException("connection refused");
        assertThat(tool("forget", "{\"scope\": \"user\", \"id\": \"ann\"}"))
                .isEqualTo("postgres_unavailable: the forget log is unavailable; retry");
        api.backends.reads.failure = new IllegalStateException("the index answered 500");
        assertThat(tool("search", "{\"query\": \"tea\"}")).isEqualTo("internal_error: the request failed; see the server log");
        assertThat(api.backends.published).isEmpty();
    }

    @Test
    void aBackendThatFailsIs503OrAnInternalError() throws Exception {
        api.backends.kafkaDown = true;
        refused(api.call("POST", "/v1/memories", ACME, "{\"text\": \"x\"}"), 503, "kafka_unavailable", "retry");
        api.backends.kafkaDown = false;
        api.backends.postgresFailure = new SQLException("connection refused");
        refused(api.call("DELETE", "/v1/users/ann", ACME, null), 503, "postgres_unavailable", "retry");
        refused(api.call("GET", "/v1/health", ACME, null), 503, "postgres_unavailable", "retry");
        Answer notReady = api.call("GET", "/readyz", null, null);
        assertThat(notReady.status()).isEqualTo(503);
        assertThat(notReady.body().get("status").asText()).isEqualTo("not_ready");
        assertThat(notReady.body().at("/checks/postgres").asText()).isEqualTo("unavailable");
        api.backends.postgresFailure = null;
        api.backends.rejectsFailure = new IOException("the broker is gone");
        refused(api.call("GET", "/v1/rejects", ACME, null), 503, "unavailable", "the broker is gone");
        api.backends.reads.failure = new IllegalStateException("the index answered 500");
        refused(api.call("POST", "/v1/search", ACME, "{\"query\": \"q\"}"), 500, "internal_error", "see the server log");
        assertThat(api.call("GET", "/readyz", null, null).body().at("/checks/opensearch").asText())
                .isEqualTo("unavailable: the index answered 500");
    }
}
