package io.engram.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.client.PayloadKind;
import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.retrieval.HybridRetriever;
import io.engram.retrieval.Stages;
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
import java.util.List;
import java.util.Map;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * The memory service's Model Context Protocol endpoint, {@code POST /mcp} (docs/clients.md): the streamable HTTP
 * transport in its stateless form — one JSON-RPC message per request, answered as JSON, no session — over the
 * service's own HTTP server, so the API key, the tenant and the rate limit are the HTTP API's. Each tool is one
 * of the API's operations with the same checks and error codes; a tool error is a result with {@code isError}
 * and {@code {"error": {"code", "message"}}}, as the API's error body.
 */
final class McpEndpoint implements McpStatelessServerTransport {

    private static final String TENANT = "engram.tenant";
    private static final String SCOPES = "engram.scopes";
    private static final String DOCUMENTS = "engram://documents/";
    private static final int DEFAULT_BUDGET = 2000;
    private static final int MAX_DOCUMENT_RECORDS = 10_000;

    /** One of the API's operations, called with the tenant and the tool's arguments as a JSON object. */
    private interface Tool {
        CallToolResult run(String tenant, ObjectNode arguments) throws ApiError, SQLException;
    }

    private final Operations operations;
    private final McpJackson json = McpJackson.INSTANCE;
    private final McpStatelessSyncServer server;
    private McpStatelessServerHandler handler;

    McpEndpoint(Operations operations) {
        this.operations = operations;
        Map<String, Tool> byName = Map.of("remember", this::remember, "recall", this::recall,
                "search", this::search, "forget", this::forget);
        Map<String, Scope> needs = Map.of("remember", Scope.WRITE, "recall", Scope.READ, "search", Scope.READ,
                "forget", Scope.FORGET);
        List<SyncToolSpecification> tools = new ArrayList<>();
        for (McpSchema.Tool tool : toolDefinitions()) {
            tools.add(new SyncToolSpecification(tool, (context, request) -> call(byName.get(tool.name()),
                    needs.get(tool.name()), context, request.arguments())));
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

    /**
     * Answers one POSTed JSON-RPC message of {@code tenant}'s, from a key with these scopes: a response (200), or
     * nothing for a notification (202). A tool the key's scopes do not cover answers {@code insufficient_scope}.
     */
    Reply handle(String tenant, Set<Scope> scopes, byte[] body) throws ApiError {
        JSONRPCMessage message;
        try {
            message = McpSchema.deserializeJsonRpcMessage(json, new String(body, StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) { // untrusted bytes: whatever the SDK's parser throws is a bad body
            return Reply.of(400, parseError("not a JSON-RPC request or notification: " + e.getMessage()));
        }
        McpTransportContext context = McpTransportContext.create(Map.of(TENANT, tenant, SCOPES, scopes));
        if (message instanceof JSONRPCRequest request) {
            if (McpSchema.METHOD_RESOURCES_LIST.equals(request.method())) {
                return Reply.ok(ResponsesJson.JSON.valueToTree(
                        JSONRPCResponse.result(request.id(), listDocuments(tenant))));
            }
            JSONRPCResponse response = handler.handleRequest(context, request)
                    .contextWrite(c -> c.put(McpTransportContext.KEY, context)).block();
            return Reply.ok(ResponsesJson.JSON.valueToTree(response));
        }
        if (message instanceof JSONRPCNotification notification) {
            handler.handleNotification(context, notification)
                    .contextWrite(c -> c.put(McpTransportContext.KEY, context)).block();
            return Reply.of(202, null);
        }
        throw ApiError.invalid("the MCP endpoint takes requests and notifications only");
    }

    /** A JSON-RPC error without a request id, as JSON-RPC 2.0 answers a body it could not read (the SDK's type needs an id). */
    private static ObjectNode parseError(String message) {
        ObjectNode error = ResponsesJson.JSON.createObjectNode().put("jsonrpc", McpSchema.JSONRPC_VERSION).putNull("id");
        error.putObject("error").put("code", McpSchema.ErrorCodes.PARSE_ERROR).put("message", message);
        return error;
    }

    @SuppressWarnings("unchecked")
    private CallToolResult call(Tool tool, Scope needs, McpTransportContext context, Map<String, Object> arguments) {
        ObjectNode args = arguments == null ? ResponsesJson.JSON.createObjectNode()
                : ResponsesJson.JSON.valueToTree(arguments);
        try {
            Scope.require((Set<Scope>) context.get(SCOPES), needs);
            return tool.run((String) context.get(TENANT), args);
        } catch (ApiError | SQLException | RuntimeException e) {
            ApiError error = ApiError.of(e, "an MCP tool call");
            return CallToolResult.builder().isError(true).addTextContent(error.code + ": " + error.getMessage())
                    .structuredContent(ResponsesJson.JSON.convertValue(ResponsesJson.error(error), Map.class)).build();
        }
    }

    private static CallToolResult success(String text, JsonNode structured) {
        return CallToolResult.builder().addTextContent(text)
                .structuredContent(ResponsesJson.JSON.convertValue(structured, Map.class)).build();
    }

    private static final List<String> MEMORY_ONLY = List.of("type", "memory_id", "key", "supersedes", "valid_from",
            "valid_until", "expires_at");
    private static final List<String> TURN_ONLY = List.of("role", "turn_id", "seq");

    /** A memory, or with {@code session_id} a turn: the write endpoints' defaults and validation. */
    private CallToolResult remember(String tenant, ObjectNode args) throws ApiError, SQLException {
        boolean turn = args.has("session_id");
        for (String field : turn ? MEMORY_ONLY : TURN_ONLY) {
            if (args.has(field)) {
                throw ApiError.invalid(field + (turn ? " is for a memory, not a turn of a session"
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
        Writes.Written written = operations.write(tenant, turn ? PayloadKind.TURN : PayloadKind.MEMORY, args);
        if (written.accepted().isEmpty()) {
            Writes.Rejection reject = written.rejected().get(0);
            throw new ApiError(400, reject.code(), reject.message());
        }
        return success("Remembered as " + written.accepted().get(0)
                + "; it is searchable once the pipeline has indexed it (about a second).", ResponsesJson.written(written));
    }

    private CallToolResult recall(String tenant, ObjectNode args) throws ApiError {
        if (!args.has("budget_tokens")) {
            args.put("budget_tokens", DEFAULT_BUDGET);
        }
        AssembledContext context = operations.context(tenant, args, new Stages());
        String prompt = context.promptText();
        return success(prompt.isEmpty() ? "Nothing relevant is remembered." : prompt + "\n(" + context.tokensUsed()
                + " of " + context.budget() + " tokens)", ResponsesJson.context(tenant, context));
    }

    private CallToolResult search(String tenant, ObjectNode args) throws ApiError {
        List<HybridRetriever.Result> results = operations.search(tenant, args, new Stages());
        StringBuilder text = new StringBuilder();
        for (HybridRetriever.Result r : results) {
            text.append(String.format("- [%s] (%s, %.3f) %s%n", r.record().id(), r.record().type().label(), r.score(),
                    r.record().text().strip()));
        }
        return success(text.isEmpty() ? "No results." : text.toString(), ResponsesJson.search(tenant, results));
    }

    private CallToolResult forget(String tenant, ObjectNode args) throws ApiError, SQLException {
        ForgetScope scope = ForgetScope.ofLabel(args.get("scope").asText());
        Operations.ForgetReceipt forget = operations.forget(tenant, scope, args.get("id").asText());
        return success("Forgetting " + scope.label() + " " + forget.target() + " as " + forget.forgetId()
                + ": the pipeline removes it within seconds.", ResponsesJson.forgetRequested(forget));
    }

    /** {@code resources/list} per tenant: the SDK's registry lists the same resources to every caller. */
    private McpSchema.ListResourcesResult listDocuments(String tenant) throws ApiError {
        List<McpSchema.Resource> resources = new ArrayList<>();
        for (MemoryReads.Document d : operations.documents(tenant)) {
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
        String[] parts = request.uri().substring(DOCUMENTS.length()).split("/", -1);
        if (parts.length != 2) {
            throw McpError.builder(McpSchema.ErrorCodes.INVALID_PARAMS)
                    .message("a document is " + DOCUMENTS + "{agent_id}/{path}, each part URL-encoded").build();
        }
        String agentId = URLDecoder.decode(parts[0], StandardCharsets.UTF_8);
        String path = URLDecoder.decode(parts[1], StandardCharsets.UTF_8);
        List<MemoryRecord> records;
        try {
            records = operations.document((String) context.get(TENANT), agentId, path, MAX_DOCUMENT_RECORDS);
        } catch (ApiError e) {
            throw McpError.builder(McpSchema.ErrorCodes.INTERNAL_ERROR).message(e.getMessage()).build();
        }
        if (records.isEmpty()) {
            throw McpError.builder(McpSchema.ErrorCodes.RESOURCE_NOT_FOUND)
                    .message("no document " + path + " of agent " + agentId).build();
        }
        return new McpSchema.ReadResourceResult(List.of(new McpSchema.TextResourceContents(request.uri(), "text/markdown",
                documentText(agentId, path, records))));
    }

    private static String documentText(String agentId, String path, List<MemoryRecord> records) {
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
        return text.toString();
    }

    private static int tierOf(MemoryRecord r) {
        return r.type() == RecordType.LORE || r.tier() == null ? 3 : Math.max(1, Math.min(3, r.tier()));
    }
}
