package io.engram.service;

import static io.engram.service.ServiceHarness.ACME;
import static io.engram.service.ServiceHarness.GLOBEX;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.client.Payload;
import io.engram.service.ServiceHarness.Answer;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A caller names a record by the id it gave it ({@code m-1}, a turn's {@code session/turn}) or by the store id
 * the API answered ({@code acme/m-1}), within its key's tenant: reads, forgets and the MCP forget tool resolve
 * both to the same record, and never to another tenant's.
 */
class CallerIdsTest {

    @AutoClose
    private ServiceHarness api = new ServiceHarness();

    @BeforeEach
    void eachTenantWritesAnM1() throws Exception {
        assertThat(api.call("POST", "/v1/memories", ACME, "{\"memory_id\": \"m-1\", \"text\": \"Acme ships on Fridays.\"}")
                .body().get("accepted")).containsExactly(ResponsesJson.JSON.getNodeFactory().textNode("acme/m-1"));
        assertThat(api.call("POST", "/v1/memories", GLOBEX, "{\"memory_id\": \"m-1\", \"text\": \"Globex ships on Mondays.\"}")
                .status()).isEqualTo(202);
    }

    private String text(String key, String id) throws Exception {
        Answer answer = api.call("GET", "/v1/memories/" + id, key, null);
        return answer.status() == 200 ? answer.body().get("id").asText() + ": " + answer.body().get("text").asText()
                : answer.status() + " " + answer.code();
    }

    /** The forgets published, as {@code tenant scope target}. */
    private List<String> forgetsSent() {
        return api.backends.published.stream().filter(p -> p.json().get("schema").asText().equals("forget.v1"))
                .map(Payload::json).map(f -> f.get("tenant_id").asText() + " " + f.get("scope").asText() + " "
                        + f.get("target").asText()).toList();
    }

    @Test
    void aMemoryIsReadAndForgottenByItsOwnIdAndByItsStoreIdWithinTheKeysTenant() throws Exception {
        assertThat(text(ACME, "m-1")).isEqualTo("acme/m-1: Acme ships on Fridays.");
        assertThat(text(ACME, "acme%2Fm-1")).isEqualTo("acme/m-1: Acme ships on Fridays.");
        assertThat(text(GLOBEX, "m-1")).isEqualTo("globex/m-1: Globex ships on Mondays.");
        assertThat(text(GLOBEX, "acme%2Fm-1")).as("another tenant's store id").isEqualTo("404 not_found");

        Answer forget = api.call("DELETE", "/v1/memories/m-1", ACME, null);
        assertThat(forget.status()).isEqualTo(202);
        assertThat(forget.body().get("target").asText()).isEqualTo("acme/m-1");
        assertThat(forgetsSent()).containsExactly("acme memory acme/m-1");
        String forgetId = forget.body().get("forget_id").asText();
        assertThat(api.call("GET", "/v1/forgets/" + forgetId, ACME, null).body().get("target").asText()).isEqualTo("acme/m-1");
        assertThat(api.call("GET", "/v1/forgets/" + forgetId, GLOBEX, null).status()).isEqualTo(404);

        assertThat(text(ACME, "m-1")).isEqualTo("404 not_found");
        assertThat(text(GLOBEX, "m-1")).as("globex's m-1 untouched").isEqualTo("globex/m-1: Globex ships on Mondays.");
        assertThat(api.call("DELETE", "/v1/memories/m-1", ACME, null).status()).as("nothing left to forget").isEqualTo(404);
        assertThat(api.backends.forgetsOf("globex")).isEmpty();
    }

    @Test
    void aTurnIsNamedByItsSessionAndTurnIds() throws Exception {
        assertThat(api.call("POST", "/v1/turns", ACME, "{\"session_id\": \"s-1\", \"turn_id\": \"t-0\", \"seq\": 0,"
                + " \"role\": \"user\", \"text\": \"Book the ferry.\"}").status()).isEqualTo(202);
        assertThat(text(ACME, "s-1%2Ft-0")).isEqualTo("acme/s-1/t-0: Book the ferry.");
        assertThat(text(GLOBEX, "s-1%2Ft-0")).isEqualTo("404 not_found");
        assertThat(api.call("DELETE", "/v1/memories/s-1%2Ft-0", ACME, null).body().get("target").asText())
                .isEqualTo("acme/s-1/t-0");
    }

    @Test
    void whenBothFormsNameARecordTheStoreIdWins() throws Exception {
        // memory_id "acme/m-1" is stored as acme/acme/m-1; "acme/m-1" still names the store id acme/m-1
        api.call("POST", "/v1/memories", ACME, "{\"memory_id\": \"acme/m-1\", \"text\": \"A memory id with a slash.\"}");
        assertThat(text(ACME, "acme%2Fm-1")).isEqualTo("acme/m-1: Acme ships on Fridays.");
        assertThat(text(ACME, "acme%2Facme%2Fm-1")).isEqualTo("acme/acme/m-1: A memory id with a slash.");
    }

    @Test
    void theMcpForgetToolTakesTheCallersIdToo() throws Exception {
        ObjectNode call = ResponsesJson.JSON.createObjectNode().put("jsonrpc", "2.0").put("id", 1).put("method", "tools/call");
        call.putObject("params").put("name", "forget").putObject("arguments").put("scope", "memory").put("id", "m-1");
        JsonNode result = api.call("POST", "/mcp", GLOBEX, call.toString()).body().get("result");
        assertThat(result.path("isError").asBoolean()).as("%s", result).isFalse();
        assertThat(result.at("/structuredContent/target").asText()).isEqualTo("globex/m-1");
        assertThat(result.at("/content/0/text").asText()).startsWith("Forgetting memory globex/m-1 as fgt-");
        assertThat(forgetsSent()).containsExactly("globex memory globex/m-1");
        assertThat(text(ACME, "m-1")).isEqualTo("acme/m-1: Acme ships on Fridays.");

        JsonNode again = api.call("POST", "/mcp", GLOBEX, call.toString()).body().get("result");
        assertThat(again.path("isError").asBoolean()).isTrue();
        assertThat(again.at("/content/0/text").asText()).isEqualTo("not_found: no memory m-1");
    }
}
