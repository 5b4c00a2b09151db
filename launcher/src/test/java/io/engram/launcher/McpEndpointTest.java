package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.engram.store.RecordIds;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.McpHttpClientTransportAuthorizationException;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The memory service's MCP endpoint through the Java MCP SDK's own client (streamable HTTP) against the live
 * embedded product: the tools are listed with their schemas, remember then recall finds a memory, recall hands
 * back what POST /v1/context does, forget removes it, bad arguments are tool errors, a wrong key is refused, and
 * another tenant sees nothing.
 */
class McpEndpointTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration VISIBLE = Duration.ofSeconds(90);
    private static LiveProduct product;
    private static McpSyncClient acme;
    private static McpSyncClient globex;

    @BeforeAll
    static void start() throws Exception {
        Properties fast = new Properties();
        fast.setProperty("checkpoint.interval", "1s");
        product = LiveProduct.start(Optional.empty(), 0, List.of("acme", "globex"), fast, line -> { });
        acme = client(product.keys().get("acme"));
        globex = client(product.keys().get("globex"));
    }

    @AfterAll
    static void stop() throws Exception {
        for (McpSyncClient c : new McpSyncClient[] {acme, globex}) {
            if (c != null) {
                c.close();
            }
        }
        if (product != null) {
            product.close();
        }
    }

    private static McpSyncClient client(String key) {
        HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport.builder(product.apiUrl())
                .endpoint("/mcp").requestBuilder(HttpRequest.newBuilder().header("Authorization", "Bearer " + key))
                .build();
        McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(30)).build();
        client.initialize();
        return client;
    }

    private static CallToolResult call(McpSyncClient client, String tool, Map<String, Object> arguments) {
        return client.callTool(new McpSchema.CallToolRequest(tool, arguments));
    }

    private static String text(CallToolResult result) {
        return ((McpSchema.TextContent) result.content().get(0)).text();
    }

    private static JsonNode structured(CallToolResult result) {
        return JSON.valueToTree(result.structuredContent());
    }

    private static List<String> ids(JsonNode items) {
        List<String> ids = new ArrayList<>();
        items.forEach(i -> ids.add(i.get("id").asText()));
        return ids;
    }

    private static String remember(McpSyncClient client, Map<String, Object> arguments) {
        CallToolResult result = call(client, "remember", arguments);
        assertThat(result.isError()).as(text(result)).isNotEqualTo(Boolean.TRUE);
        String id = structured(result).get("accepted").get(0).asText();
        assertThat(text(result)).startsWith("Remembered as " + id);
        return id;
    }

    private static JsonNode recall(McpSyncClient client, String query) {
        CallToolResult result = call(client, "recall", Map.of("query", query, "budget_tokens", 1000));
        assertThat(result.isError()).as(text(result)).isNotEqualTo(Boolean.TRUE);
        return structured(result);
    }

    @Test
    void theToolsAreListedWithTheirArgumentSchemas() {
        List<McpSchema.Tool> tools = acme.listTools().tools();
        assertThat(tools).extracting(McpSchema.Tool::name).containsExactlyInAnyOrder("remember", "recall", "search",
                "forget");
        for (McpSchema.Tool tool : tools) {
            assertThat(tool.description()).isNotBlank();
            assertThat(tool.inputSchema()).containsEntry("type", "object").containsKey("required");
        }
        assertThat(acme.getServerInfo().name()).isEqualTo("engram");
        assertThat(acme.listResourceTemplates().resourceTemplates()).extracting(McpSchema.ResourceTemplate::uriTemplate)
                .containsExactly("engram://documents/{agent_id}/{path}");
    }

    @Test
    void rememberThenRecallFindsItAsTheHttpContextDoesAndForgetRemovesIt() throws Exception {
        String text = "Priya's favourite tea is a smoky lapsang souchong.";
        String id = remember(acme, Map.of("text", text));
        String query = "which tea does Priya like?";
        Polling.await("the memory is recalled", VISIBLE, () -> ids(recall(acme, query).get("included")).contains(id));

        CallToolResult recalled = call(acme, "recall", Map.of("query", query, "budget_tokens", 1000));
        assertThat(text(recalled)).contains("- " + text + " [" + id + "]").contains("## What you remember");
        // the same context as the HTTP API's, item for item
        HttpResponse<String> http = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(product.apiUrl() + "/v1/context"))
                .header("Authorization", "Bearer " + product.keys().get("acme"))
                .POST(HttpRequest.BodyPublishers.ofString(JSON.createObjectNode().put("query", query)
                        .put("budget_tokens", 1000).toString())).build(), HttpResponse.BodyHandlers.ofString());
        JsonNode context = JSON.readTree(http.body());
        assertThat(ids(structured(recalled).get("included"))).isEqualTo(ids(context.get("included")));
        assertThat(structured(recalled).get("prompt")).isEqualTo(context.get("prompt"));

        CallToolResult search = call(acme, "search", Map.of("query", "smoky tea", "k", 5));
        assertThat(ids(structured(search).get("results"))).contains(id);
        assertThat(text(search)).contains("[" + id + "] (memory, ");

        CallToolResult forget = call(acme, "forget", Map.of("scope", "memory", "id", id));
        assertThat(forget.isError()).as(text(forget)).isNotEqualTo(Boolean.TRUE);
        assertThat(structured(forget).get("forget_id").asText()).startsWith("fgt-");
        Polling.await("the memory is forgotten", VISIBLE, () -> !ids(recall(acme, query).get("included")).contains(id)
                && !ids(structured(call(acme, "search", Map.of("query", "smoky tea"))).get("results")).contains(id));
    }

    @Test
    void forgetTakesTheIdTheCallerGaveTheMemoryWithinItsTenant() throws Exception {
        assertThat(remember(acme, Map.of("memory_id", "m-wifi", "text", "Acme's guest wifi password changes monthly.")))
                .isEqualTo("acme/m-wifi");
        assertThat(remember(globex, Map.of("memory_id", "m-wifi", "text", "Globex's guest wifi password never changes.")))
                .isEqualTo("globex/m-wifi");
        Polling.await("both are searchable", VISIBLE, () -> searchIds(acme, "guest wifi password").contains("acme/m-wifi")
                && searchIds(globex, "guest wifi password").contains("globex/m-wifi"));

        CallToolResult forget = call(acme, "forget", Map.of("scope", "memory", "id", "m-wifi"));
        assertThat(forget.isError()).as(text(forget)).isNotEqualTo(Boolean.TRUE);
        assertThat(structured(forget).get("target").asText()).isEqualTo("acme/m-wifi");
        Polling.await("acme's is forgotten", VISIBLE, () -> !searchIds(acme, "guest wifi password").contains("acme/m-wifi"));
        assertThat(searchIds(globex, "guest wifi password")).as("globex's m-wifi untouched").contains("globex/m-wifi");
    }

    private static List<String> searchIds(McpSyncClient client, String query) {
        return ids(structured(call(client, "search", Map.of("query", query))).get("results"));
    }

    @Test
    void aTurnOfASessionIsRecalledInItsConversation() throws Exception {
        String id = remember(acme, Map.of("text", "Let's book the Lisbon flight for the 14th of March.",
                "session_id", "trip-42", "seq", 0, "user_id", "u-7"));
        assertThat(id).isEqualTo(RecordIds.turn("acme", "trip-42", "t-0"));
        Polling.await("the turn is in its conversation", VISIBLE, () -> {
            JsonNode context = structured(call(acme, "recall", Map.of("query", "when is the flight?",
                    "session_id", "trip-42")));
            return ids(context.get("included")).contains(id);
        });
    }

    /** A refused call's text, after checking it is a tool error (a result with isError, not a protocol error). */
    private static String refused(String tool, Map<String, Object> arguments) {
        CallToolResult result = call(acme, tool, arguments);
        assertThat(result.isError()).as("%s %s: %s", tool, arguments, text(result)).isTrue();
        return text(result);
    }

    @Test
    void badArgumentsAreToolErrorsThatSayWhatIsWrong() {
        // refused by the tool's argument schema, before the tool runs
        assertThat(refused("recall", Map.of("budget_tokens", 100))).contains("query");
        assertThat(refused("recall", Map.of("query", "tea", "budget_tokens", "lots"))).contains("/budget_tokens");
        assertThat(refused("remember", Map.of("text", "x", "type", "diary"))).contains("/type");
        assertThat(refused("remember", Map.of("text", "x", "session_id", "s-1"))).contains("seq");
        // refused by the operation, with the HTTP API's code and message
        assertThat(refused("remember", Map.of("text", "x", "role", "assistant")))
                .isEqualTo("invalid_request: role is for a turn of a session: give session_id too");
        assertThat(refused("forget", Map.of("scope", "memory", "id", "acme/m-none")))
                .isEqualTo("not_found: no memory acme/m-none");
    }

    @Test
    void aWrongKeyIsRefused() throws Exception {
        assertThatThrownBy(() -> client("not-a-key"))
                .hasRootCauseInstanceOf(McpHttpClientTransportAuthorizationException.class);
        HttpResponse<String> raw = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(product.apiUrl() + "/mcp")).header("Authorization", "Bearer not-a-key")
                .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/list\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(raw.statusCode()).isEqualTo(401);
        assertThat(JSON.readTree(raw.body()).at("/error/code").asText()).isEqualTo("unauthorized");
    }

    @Test
    void aBodyThatIsNoJsonRpcMessageIsAParseErrorAndTheEndpointKeepsAnswering() throws Exception {
        for (String body : new String[] {"{not json", "[1, 2, 3]", "{\"jsonrpc\": \"2.0\"}"}) {
            HttpResponse<String> raw = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create(product.apiUrl() + "/mcp")).header("Authorization", "Bearer " + product.keys().get("acme"))
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(raw.statusCode()).as(body).isEqualTo(400);
            JsonNode error = JSON.readTree(raw.body());
            assertThat(error.get("jsonrpc").asText()).as(body).isEqualTo("2.0");
            assertThat(error.at("/error/code").asInt()).as(body).isEqualTo(McpSchema.ErrorCodes.PARSE_ERROR);
        }
        assertThat(acme.listTools().tools()).hasSize(4);
    }

    @Test
    void anotherTenantSeesNothingOfTheFirstOnesMemoryOrDocuments() throws Exception {
        String id = remember(acme, Map.of("text", "The vault code for the Geneva office is kept by Marguerite."));
        HttpResponse<String> doc = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(product.apiUrl() + "/v1/documents"))
                .header("Authorization", "Bearer " + product.keys().get("acme"))
                .POST(HttpRequest.BodyPublishers.ofString(JSON.createObjectNode().put("agent_id", "concierge")
                        .put("path", "AGENTS.md").put("doc_class", "core").put("version", 1)
                        .put("content", "# Rules\n\n- Never reveal a guest's room number.\n- Always answer in"
                                + " French when the guest writes in French.\n\nThe hotel opened in 1921.\n")
                        .toString())).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(doc.statusCode()).as(doc.body()).isEqualTo(202);
        String uri = "engram://documents/concierge/AGENTS.md";
        Polling.await("acme's memory and document are indexed", VISIBLE,
                () -> ids(recall(acme, "who keeps the vault code?").get("included")).contains(id)
                        && acme.listResources().resources().stream().anyMatch(r -> r.uri().equals(uri)));

        String document = ((McpSchema.TextResourceContents) acme.readResource(new McpSchema.ReadResourceRequest(uri))
                .contents().get(0)).text();
        assertThat(document).startsWith("# AGENTS.md (agent concierge, version 1)")
                .contains("Never reveal a guest's room number.").contains("## Hard rules");

        assertThat(ids(recall(globex, "who keeps the vault code?").get("included"))).doesNotContain(id);
        assertThat(ids(structured(call(globex, "search", Map.of("query", "vault code Geneva"))).get("results")))
                .doesNotContain(id);
        assertThat(globex.listResources().resources()).extracting(McpSchema.Resource::uri).doesNotContain(uri);
        assertThatThrownBy(() -> globex.readResource(new McpSchema.ReadResourceRequest(uri)))
                .hasMessageContaining("no document");
        CallToolResult forget = call(globex, "forget", Map.of("scope", "memory", "id", id));
        assertThat(structured(forget).at("/error/code").asText()).isEqualTo("not_found");
        assertThat(ids(recall(acme, "who keeps the vault code?").get("included"))).as("still acme's").contains(id);
    }
}
