package io.engram.service;

import static io.engram.service.ServiceHarness.ACME;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.service.ServiceHarness.Answer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A memory's facts through the API: written as given, refused when malformed, read back with its chain and as of a time. */
class HttpFactsTest {

    @AutoClose
    private ServiceHarness api = new ServiceHarness();

    private static Instant day(String monthDay) {
        return Instant.parse("2025-" + monthDay + "T00:00:00Z");
    }

    private static MemoryRecord city(String id, String text, String monthDay, String supersededBy, String at) {
        return MemoryRecord.of("acme/" + id, "acme", RecordType.MEMORY, text, day(monthDay)).user("ann").key("user.city")
                .supersededBy(supersededBy == null ? null : "acme/" + supersededBy, at == null ? null : day(at))
                .tokens(4).build();
    }

    @Test
    void aMemorysFactsAreWrittenAsGiven() throws Exception {
        Answer written = api.call("POST", "/v1/memories", ACME, "{\"memory_id\": \"m-2\", \"text\": \"Ann lives in Berlin.\","
                + " \"user_id\": \"ann\", \"key\": \"user.city\", \"supersedes\": [\"m-1\"],"
                + " \"valid_from\": \"2025-03-01T00:00:00Z\", \"expires_at\": \"2026-03-01T00:00:00Z\"}");
        assertThat(written.status()).isEqualTo(202);
        JsonNode sent = api.backends.published.get(0).json();
        assertThat(sent.get("key").asText()).isEqualTo("user.city");
        assertThat(sent.get("user_id").asText()).isEqualTo("ann");
        assertThat(sent.at("/supersedes/0").asText()).isEqualTo("m-1");
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"key\": \"user city\"", "\"key\": \"-starts-with-a-dash\"", "\"supersedes\": \"m-1\"",
            "\"valid_from\": \"yesterday\"", "\"expires_at\": \"2026-03-01\"",
            "\"valid_from\": \"2025-03-02T00:00:00Z\", \"valid_until\": \"2025-03-01T00:00:00Z\""})
    void malformedFactsAreA400NamingTheField(String facts) throws Exception {
        Answer refused = api.call("POST", "/v1/memories", ACME, "{\"text\": \"x\", " + facts + "}");
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.body().at("/rejected/0/code").asText()).isEqualTo("schema_violation");
        assertThat(refused.body().at("/rejected/0/message").asText()).startsWith("memory.v1: ")
                .contains(facts.substring(1, facts.indexOf('"', 1)));
        assertThat(api.backends.published).isEmpty();
    }

    @Test
    void aMemoryAnswersItsFactsAndItsChainOldestFirst() throws Exception {
        api.backends.reads.put(city("m-1", "Ann lives in Paris.", "01-10", "m-2", "03-01"));
        api.backends.reads.put(city("m-2", "Ann lives in Berlin.", "03-01", "m-3", "06-01"));
        api.backends.reads.put(city("m-3", "Ann lives in Rome.", "06-01", null, null));
        JsonNode berlin = api.call("GET", "/v1/memories/m-2", ACME, null).body();
        assertThat(berlin.get("key").asText()).isEqualTo("user.city");
        assertThat(berlin.get("superseded_by").asText()).isEqualTo("acme/m-3");
        assertThat(berlin.get("superseded_at").asText()).isEqualTo("2025-06-01T00:00:00Z");
        assertThat(texts(berlin.get("chain"))).containsExactly("acme/m-1", "acme/m-2", "acme/m-3");
        assertThat(texts(api.call("GET", "/v1/memories/m-3", ACME, null).body().get("chain")))
                .containsExactly("acme/m-1", "acme/m-2", "acme/m-3");
    }

    @Test
    void searchAndContextReturnWhatHoldsNowOrAsOfATime() throws Exception {
        api.backends.reads.put(city("m-1", "Ann lives in Paris.", "01-10", "m-2", "03-01"));
        api.backends.reads.put(city("m-2", "Ann lives in Berlin.", "03-01", null, null));
        JsonNode now = api.call("POST", "/v1/search", ACME, "{\"query\": \"where does Ann live\"}").body();
        assertThat(texts(now.get("results"), "id")).containsExactly("acme/m-2");
        JsonNode february = api.call("POST", "/v1/context", ACME, "{\"query\": \"where does Ann live\","
                + " \"budget_tokens\": 100, \"as_of\": \"2025-02-01T00:00:00Z\"}").body();
        assertThat(texts(february.get("included"), "id")).containsExactly("acme/m-1");
        Answer bad = api.call("POST", "/v1/search", ACME, "{\"query\": \"Ann\", \"as_of\": \"February\"}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.body().at("/error/message").asText()).startsWith("as_of must be an ISO-8601 date-time");
    }

    @Test
    void theMcpToolsTakeAMemorysFactsAndAsOf() throws Exception {
        Answer remembered = api.call("POST", "/mcp", ACME, mcp("remember", "{\"text\": \"Ann lives in Berlin.\","
                + " \"user_id\": \"ann\", \"key\": \"user.city\", \"supersedes\": [\"m-1\"]}"));
        assertThat(remembered.body().at("/result/isError").asBoolean()).isFalse();
        assertThat(api.backends.published.get(0).json().get("key").asText()).isEqualTo("user.city");
        api.backends.reads.put(city("m-1", "Ann lives in Paris.", "01-10", "m-2", "03-01"));
        Answer then = api.call("POST", "/mcp", ACME, mcp("search", "{\"query\": \"Ann lives\","
                + " \"as_of\": \"2025-02-01T00:00:00Z\"}"));
        assertThat(then.body().at("/result/content/0/text").asText()).contains("[acme/m-1]");
    }

    private static String mcp(String tool, String arguments) {
        return "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/call\", \"params\": {\"name\": \"" + tool
                + "\", \"arguments\": " + arguments + "}}";
    }

    private static List<String> texts(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(v -> values.add(v.asText()));
        return values;
    }

    private static List<String> texts(JsonNode items, String field) {
        List<String> values = new ArrayList<>();
        items.forEach(i -> values.add(i.get(field).asText()));
        return values;
    }
}
