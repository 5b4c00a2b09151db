package io.engram.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.client.PayloadKind;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.retrieval.Stages;
import io.engram.store.MemoryStore;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpStatelessServerFeatures.SyncResourceTemplateSpecification;
import io.modelcontextprotocol.server.McpStatelessServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpStatelessServerHandler;
import io.modelcontextprotocol.server.McpStatelessSyncServer;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCNotification;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCRequest;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpStatelessServerTransport;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The memory service's Model Context Protocol endpoint, {@code POST /mcp} (docs/clients.md): the streamable HTTP
 * transport in its stateless form — one JSON-RPC message per request, answered as JSON, no session — over the
 * service's own HTTP server, so the API key, the tenant and the rate limit are the HTTP API's. Each tool is one
 * of the API's operations with the same checks and error codes; a tool error is a result with {@code isError}
 * and {@code {"error": {"code", "message"}}}, as the API's error body.
 */
final class McpEndpoint implements McpStatelessServerTransport {

    private static final Logger LOG = LoggerFactory.getLogger(McpEndpoint.class);
    private static final String TENANT = "engram.tenant";
    private static final String DOCUMENTS = "engram://documents/";
    private static final int DEFAULT_BUDGET = 2000;
    private static final int MAX_DOCUMENT_RECORDS = 10_000;

    /** One of the API's operations, called with the tenant and the tool's arguments as a JSON object. */
    private interface Operation {
        CallToolResult run(String tenant, ObjectNode arguments) throws ApiError, SQLException;
    }

    private final MemoryService service;
    private final McpJackson json = McpJackson.INSTANCE;
    private final McpStatelessSyncServer server;
    private McpStatelessServerHandler handler;

    McpEndpoint(MemoryService service) {
        this.service = service;
        Map<String, Operation> operations = Map.of("remember", this::remember, "recall", this::recall,
                "search", this::search, "forget", this::forget);
        List<SyncToolSpecification> tools = new ArrayList<>();
        for (McpSchema.Tool tool : toolDefinitions()) {
            tools.add(new SyncToolSpecification(tool, (context, request) -> call(operations.get(tool.name()),
                    (String) context.get(TENANT), request.arguments())));
        }
        McpSchema.ResourceTemplate document = McpSchema.ResourceTemplate.builder()
                .uriTemplate(DOCUMENTS + "{agent_id}/{path}").name("agent-document").title("An agent document")
                .description("An agent document as the pipeline partitioned it: its hard rules, soft rules and lore."
                        + " agent_id and path are URL-encoded.")
                .mimeType("text/markdown").build();
        this.server = McpServer.sync(this)
                .serverInfo("engram", "1")
                .instructions("Engram is this agent's long-term memory. Call recall with the user's message before"
                        + " answering, remember what should outlive the conversation, and forget what the user asks"
                        + " to be forgotten.")
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).resources(false, false).build())
                .jsonMapper(json).jsonSchemaValidator(json).validateToolInputs(true)
                .tools(tools)
                .resourceTemplates(new SyncResourceTemplateSpecification(document, this::readDocument))
                .build();
    }

    private List<McpSchema.Tool> toolDefinitions() {
        try (InputStream in = McpEndpoint.class.getResourceAsStream("/engram/service/mcp-tools.json")) {
            List<McpSchema.Tool> tools = new ArrayList<>();
            for (JsonNode t : ResponsesJson.JSON.readTree(in)) {
                tools.add(McpSchema.Tool.builder().name(t.get("name").asText()).title(t.get("title").asText())
                        .description(t.get("description").asText())
                        .inputSchema(json, t.get("inputSchema").toString()).build());
            }
            return tools;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void setMcpHandler(McpStatelessServerHandler handler) {
        this.handler = handler;
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.empty();
    }

    /** Answers one POSTed JSON-RPC message of {@code tenant}'s: a response (200), or nothing for a notification (202). */
    MemoryService.Answer handle(String tenant, byte[] body) throws ApiError {
        JSONRPCMessage message;
        try {
            message = McpSchema.deserializeJsonRpcMessage(json, new String(body, StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) { // untrusted bytes: whatever the SDK's parser throws is a bad body
            return new MemoryService.Answer(400, parseError("not a JSON-RPC request or notification: " + e.getMessage()));
        }
        McpTransportContext context = McpTransportContext.create(Map.of(TENANT, tenant));
        if (message instanceof JSONRPCRequest request) {
            if (McpSchema.METHOD_RESOURCES_LIST.equals(request.method())) {
                return new MemoryService.Answer(200, ResponsesJson.JSON.valueToTree(
                        JSONRPCResponse.result(request.id(), listDocuments(tenant))));
            }
            JSONRPCResponse response = handler.handleRequest(context, request)
                    .contextWrite(c -> c.put(McpTransportContext.KEY, context)).block();
            return new MemoryService.Answer(200, ResponsesJson.JSON.valueToTree(response));
        }
        if (message instanceof JSONRPCNotification notification) {
            handler.handleNotification(context, notification)
                    .contextWrite(c -> c.put(McpTransportContext.KEY, context)).block();
            return new MemoryService.Answer(202, null);
        }
        throw new ApiError(400, "invalid_request", "the MCP endpoint takes requests and notifications only");
    }

    /** A JSON-RPC error without a request id, as JSON-RPC 2.0 answers a body it could not read (the SDK's type needs an id). */
    private static ObjectNode parseError(String message) {
        ObjectNode error = ResponsesJson.JSON.createObjectNode().put("jsonrpc", McpSchema.JSONRPC_VERSION).putNull("id");
        error.putObject("error").put("code", McpSchema.ErrorCodes.PARSE_ERROR).put("message", message);
        return error;
    }

    private CallToolResult call(Operation operation, String tenant, Map<String, Object> arguments) {
        ObjectNode args = arguments == null ? ResponsesJson.JSON.createObjectNode()
                : ResponsesJson.JSON.valueToTree(arguments);
        try {
            return operation.run(tenant, args);
        } catch (ApiError e) {
            return failure(e.code, e.getMessage());
        } catch (SQLException e) {
            LOG.warn("PostgreSQL failed during an MCP tool call", e);
            return failure("postgres_unavailable", "the forget log is unavailable; retry");
        } catch (RuntimeException e) {
            LOG.error("an MCP tool call failed", e);
            return failure("internal_error", "the tool failed; see the server log");
        }
    }

    private static CallToolResult failure(String code, String message) {
        ObjectNode body = ResponsesJson.JSON.createObjectNode();
        body.putObject("error").put("code", code).put("message", message);
        return CallToolResult.builder().isError(true).addTextContent(code + ": " + message)
                .structuredContent(ResponsesJson.JSON.convertValue(body, Map.class)).build();
    }

    private static CallToolResult success(String text, JsonNode structured) {
        return CallToolResult.builder().addTextContent(text)
                .structuredContent(ResponsesJson.JSON.convertValue(structured, Map.class)).build();
    }

    /** A memory, or with {@code session_id} a turn: the write endpoints' defaults and validation. */
    private CallToolResult remember(String tenant, ObjectNode args) throws ApiError, SQLException {
        boolean turn = args.has("session_id");
        for (String field : turn ? List.of("type", "memory_id") : List.of("user_id", "role", "turn_id", "seq")) {
            if (args.has(field)) {
                throw new ApiError(400, "invalid_request", field + (turn ? " is for a memory, not a turn of a session"
                        : " is for a turn of a session: give session_id too"));
            }
        }
        if (turn) {
            if (!args.has("turn_id") && args.has("seq")) {
                args.put("turn_id", "t-" + args.get("seq").asLong());
            }
            if (!args.has("role")) {
                args.put("role", "user");
            }
        }
        MemoryService.Answer answer = service.write(tenant, turn ? PayloadKind.TURN : PayloadKind.MEMORY, args);
        JsonNode body = (JsonNode) answer.body();
        if (body.get("accepted").isEmpty()) {
            JsonNode reject = body.get("rejected").get(0);
            throw new ApiError(400, reject.get("code").asText(), reject.get("message").asText());
        }
        return success("Remembered as " + body.get("accepted").get(0).asText()
                + "; it is searchable once the pipeline has indexed it (about a second).", body);
    }

    private CallToolResult recall(String tenant, ObjectNode args) throws ApiError {
        if (!args.has("budget_tokens")) {
            args.put("budget_tokens", DEFAULT_BUDGET);
        }
        ObjectNode context = service.reading(() -> service.context(tenant, args, new Stages()));
        String prompt = context.get("prompt").asText();
        return success(prompt.isEmpty() ? "Nothing relevant is remembered." : prompt + "\n(" + context.get("tokens_used")
                + " of " + context.get("budget_tokens") + " tokens)", context);
    }

    private CallToolResult search(String tenant, ObjectNode args) throws ApiError {
        ObjectNode results = service.reading(() -> service.search(tenant, args, new Stages()));
        StringBuilder text = new StringBuilder();
        for (JsonNode r : results.get("results")) {
            text.append(String.format("- [%s] (%s, %.3f) %s%n", r.get("id").asText(), r.get("type").asText(),
                    r.get("score").asDouble(), r.get("text").asText().strip()));
        }
        return success(text.isEmpty() ? "No results." : text.toString(), results);
    }

    private CallToolResult forget(String tenant, ObjectNode args) throws ApiError, SQLException {
        ForgetScope scope = ForgetScope.ofLabel(args.get("scope").asText());
        String target = args.get("id").asText();
        JsonNode forget = (JsonNode) service.forget(tenant, scope, target).body();
        return success("Forgetting " + scope.label() + " " + target + " as " + forget.get("forget_id").asText()
                + ": the pipeline removes it within seconds.", forget);
    }

    /** {@code resources/list} per tenant: the SDK's registry lists the same resources to every caller. */
    private McpSchema.ListResourcesResult listDocuments(String tenant) {
        MemoryStore.ReadBatch reads = service.store().reads(tenant);
        var documents = reads.documents();
        reads.run();
        List<McpSchema.Resource> resources = new ArrayList<>();
        for (MemoryStore.Document d : documents.get()) {
            resources.add(McpSchema.Resource.builder().uri(documentUri(d.agentId(), d.path())).name(d.path())
                    .title(d.agentId() + ": " + d.path())
                    .description("version " + d.version() + ", " + d.records() + " rules and lore records")
                    .mimeType("text/markdown").build());
        }
        return new McpSchema.ListResourcesResult(resources, null);
    }

    private static String documentUri(String agentId, String path) {
        return DOCUMENTS + URLEncoder.encode(agentId, StandardCharsets.UTF_8) + "/"
                + URLEncoder.encode(path, StandardCharsets.UTF_8);
    }

    /** The document's records in document order, under a heading per tier. */
    private McpSchema.ReadResourceResult readDocument(McpTransportContext context, McpSchema.ReadResourceRequest request) {
        String tenant = (String) context.get(TENANT);
        String[] parts = request.uri().substring(DOCUMENTS.length()).split("/", -1);
        if (parts.length != 2) {
            throw McpError.builder(McpSchema.ErrorCodes.INVALID_PARAMS)
                    .message("a document is " + DOCUMENTS + "{agent_id}/{path}, each part URL-encoded").build();
        }
        String agentId = URLDecoder.decode(parts[0], StandardCharsets.UTF_8);
        String path = URLDecoder.decode(parts[1], StandardCharsets.UTF_8);
        List<MemoryRecord> records = service.store().find(tenant, Map.of("agent_id", agentId, "doc_path", path),
                EnumSet.of(RecordType.INVARIANT, RecordType.LORE), MAX_DOCUMENT_RECORDS, "position", true);
        if (records.isEmpty()) {
            throw McpError.builder(McpSchema.ErrorCodes.RESOURCE_NOT_FOUND)
                    .message("no document " + path + " of agent " + agentId).build();
        }
        StringBuilder text = new StringBuilder("# ").append(path).append(" (agent ").append(agentId).append(", version ")
                .append(records.get(0).docVersion()).append(")\n");
        for (int tier = 1; tier <= 3; tier++) {
            int t = tier;
            List<MemoryRecord> ofTier = records.stream().filter(r -> tierOf(r) == t).toList();
            if (!ofTier.isEmpty()) {
                text.append("\n## ").append(List.of("Hard rules", "Soft rules", "Lore").get(tier - 1)).append('\n');
                ofTier.forEach(r -> text.append("\n").append(r.text().strip()).append('\n'));
            }
        }
        return new McpSchema.ReadResourceResult(List.of(new McpSchema.TextResourceContents(request.uri(), "text/markdown",
                text.toString())));
    }

    private static int tierOf(MemoryRecord r) {
        return r.type() == RecordType.LORE || r.tier() == null ? 3 : Math.max(1, Math.min(3, r.tier()));
    }
}
