package io.engram.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.client.Importer;
import io.engram.client.PayloadKind;
import io.engram.model.collapse.CollapseConfig;
import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.retrieval.HybridRetriever;
import io.engram.retrieval.Stages;
import io.engram.store.ExportLines;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * The HTTP side of each route ({@link Routes}): reads the request's arguments, calls the {@link Operations}, and
 * shapes the typed result as the API's JSON ({@link ResponsesJson}) and status.
 */
final class HttpApi {

    static final int MAX_HEALTH_ROWS = 1000;
    /** The most tenants one page of {@code GET /v1/tenants} lists (the console asks for that many). */
    static final int MAX_TENANTS_PAGE = 1000;

    private final Operations operations;
    private final Administration admin;
    private final Webhooks webhooks;
    private final QuotaGate quotas;
    private final McpEndpoint mcp;
    private final ServiceMetrics metrics;
    private final CollapseConfig collapse;
    private final int maxDocumentBody;
    private final Importer importer;

    HttpApi(Operations operations, Administration admin, Webhooks webhooks, QuotaGate quotas, ServiceMetrics metrics,
            ServiceConfig config) {
        this.operations = operations;
        this.admin = admin;
        this.webhooks = webhooks;
        this.quotas = quotas;
        this.mcp = new McpEndpoint(operations);
        this.metrics = metrics;
        this.collapse = config.collapse();
        this.maxDocumentBody = config.limits().maxDocumentBytes() + 64 * 1024;
        this.importer = new Importer(config.limits());
    }

    Reply liveness(HttpCall call) {
        return Reply.ok(ResponsesJson.JSON.createObjectNode().put("status", "ok"));
    }

    Reply readiness(HttpCall call) {
        Map<String, String> checks = operations.readiness();
        boolean ready = checks.values().stream().allMatch("ok"::equals);
        ObjectNode body = ResponsesJson.JSON.createObjectNode().put("status", ready ? "ready" : "not_ready");
        body.set("checks", ResponsesJson.JSON.valueToTree(checks));
        return Reply.of(ready ? 200 : 503, body);
    }

    Reply metrics(HttpCall call) {
        return Reply.ok(metrics.prometheusText(operations.cachedRules()));
    }

    Reply openApi(HttpCall call) {
        return Reply.ok(OpenApi.document());
    }

    Reply console(HttpCall call) throws ApiError {
        return Reply.ok(ConsoleAssets.get(call.parameter())
                .orElseThrow(() -> ApiError.notFound("no such console file: " + call.parameter())));
    }

    Reply write(HttpCall call, PayloadKind kind) throws ApiError, SQLException, IOException {
        int maxBody = kind == PayloadKind.DOC ? maxDocumentBody : MemoryService.MAX_BODY_BYTES;
        Writes.Written written = operations.write(call.tenant(), kind, call.json(maxBody));
        return Reply.of(written.accepted().isEmpty() ? 400 : 202, ResponsesJson.written(written));
    }

    Reply importRecords(HttpCall call) throws ApiError, SQLException, IOException {
        Importer.Format format = Arguments.importFormat(call.query());
        try (InputStream body = call.body()) {
            return Reply.ok(ResponsesJson.imported(operations.importRecords(call.tenant(), body, format, importer)));
        }
    }

    Reply context(HttpCall call) throws ApiError, IOException {
        Stages stages = new Stages();
        AssembledContext context = operations.context(call.tenant(), call.json(MemoryService.MAX_BODY_BYTES), stages);
        return Reply.ok(ResponsesJson.context(call.tenant(), context)).withHeader("Server-Timing", stages.serverTiming());
    }

    Reply search(HttpCall call) throws ApiError, IOException {
        Stages stages = new Stages();
        List<HybridRetriever.Result> results = operations.search(call.tenant(), call.json(MemoryService.MAX_BODY_BYTES),
                stages);
        return Reply.ok(ResponsesJson.search(call.tenant(), results)).withHeader("Server-Timing", stages.serverTiming());
    }

    Reply list(HttpCall call) throws ApiError {
        return Reply.ok(ResponsesJson.page(operations.list(call.tenant(), call.query())));
    }

    /** The tenant's records as export lines ({@link ExportLines}), streamed page by page. */
    Reply export(HttpCall call) throws ApiError {
        Operations.Export export = operations.export(call.tenant(), call.query());
        return Reply.ok(new Reply.Streamed() {
            @Override
            public String contentType() {
                return "application/x-ndjson; charset=utf-8";
            }

            @Override
            public void writeTo(OutputStream out) throws IOException {
                Writer lines = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
                ExportLines.write(export.first(), export.next(), lines); // flushed after each page: a chunk
            }
        });
    }

    Reply entities(HttpCall call) throws ApiError {
        return Reply.ok(ResponsesJson.entities(operations.entities(call.tenant(), call.query())));
    }

    Reply get(HttpCall call) throws ApiError {
        MemoryRecord record = operations.get(call.tenant(), call.parameter());
        return Reply.ok(ResponsesJson.recordWithSources(record, operations.chain(call.tenant(), record)));
    }

    Reply forget(HttpCall call, ForgetScope scope) throws ApiError, SQLException {
        return Reply.of(202, ResponsesJson.forgetRequested(operations.forget(call.tenant(), scope, call.parameter())));
    }

    Reply forgetStatus(HttpCall call) throws ApiError, SQLException {
        return Reply.ok(ResponsesJson.forget(operations.forgetStatus(call.tenant(), call.parameter())));
    }

    Reply health(HttpCall call) throws ApiError, SQLException {
        int limit = Arguments.limit(call.query(), 200, MAX_HEALTH_ROWS);
        return Reply.ok(CycleHistory.json(call.tenant(), operations.health(call.tenant(), limit), collapse));
    }

    Reply rejects(HttpCall call) throws ApiError {
        int perReason = Arguments.limit(call.query(), 20, Operations.MAX_PAGE);
        ObjectNode answer = ResponsesJson.JSON.createObjectNode().put("tenant_id", call.tenant());
        operations.rejects(call.tenant(), perReason).forEach(answer.putArray("rejects")::add);
        return Reply.ok(answer);
    }

    Reply tenants(HttpCall call) throws ApiError, SQLException {
        int limit = Arguments.limit(call.query(), 100, MAX_TENANTS_PAGE);
        Operations.TenantPage page = operations.tenants(call.caller(), call.query().getOrDefault("after", ""), limit);
        ObjectNode answer = ResponsesJson.JSON.createObjectNode();
        page.tenants().forEach(answer.putArray("tenants")::add);
        return Reply.ok(answer.put("operator", call.caller().operator()).put("next_after", page.nextAfter()));
    }

    Reply mcp(HttpCall call) throws ApiError, IOException {
        return mcp.handle(call.tenant(), call.caller().scopes(), call.bytes(MemoryService.MAX_BODY_BYTES));
    }

    Reply usage(HttpCall call) throws ApiError, SQLException {
        return Reply.ok(AdminJson.usage(admin.usage(call.tenant(), call.query())).put("tenant_id", call.tenant()));
    }

    Reply allUsage(HttpCall call) throws ApiError, SQLException {
        return Reply.ok(AdminJson.usage(admin.usage(null, call.query())));
    }

    Reply createKey(HttpCall call) throws ApiError, SQLException, IOException {
        JsonNode args = call.json(MemoryService.MAX_BODY_BYTES);
        return Reply.of(201, AdminJson.madeKey(admin.createKey(call.tenant(), args)));
    }

    Reply listKeys(HttpCall call) {
        ObjectNode answer = ResponsesJson.JSON.createObjectNode().put("tenant_id", call.tenant());
        ArrayNode keys = answer.putArray("keys");
        admin.keys(call.tenant()).forEach(k -> keys.add(AdminJson.key(k)));
        return Reply.ok(answer);
    }

    Reply rotateKey(HttpCall call) throws ApiError, SQLException {
        return Reply.of(201, AdminJson.madeKey(admin.rotateKey(call.tenant(), call.parameter())));
    }

    Reply revokeKey(HttpCall call) throws ApiError, SQLException {
        admin.revokeKey(call.tenant(), call.parameter());
        return Reply.of(204, null);
    }

    Reply createTenant(HttpCall call) throws ApiError, SQLException, IOException {
        TenantStore.Tenant t = admin.createTenant(call.json(MemoryService.MAX_BODY_BYTES));
        return Reply.of(201, AdminJson.tenant(t, quotas.quotasOf(t.tenantId())));
    }

    Reply listTenants(HttpCall call) {
        ObjectNode answer = ResponsesJson.JSON.createObjectNode();
        ArrayNode tenants = answer.putArray("tenants");
        admin.tenants().forEach(t -> tenants.add(AdminJson.tenant(t, quotas.quotasOf(t.tenantId()))));
        return Reply.ok(answer);
    }

    Reply getTenant(HttpCall call) throws ApiError {
        return Reply.ok(AdminJson.tenant(admin.tenant(call.parameter()), quotas.quotasOf(call.parameter())));
    }

    Reply updateTenant(HttpCall call) throws ApiError, SQLException, IOException {
        TenantStore.Tenant t = admin.updateTenant(call.parameter(), call.json(MemoryService.MAX_BODY_BYTES));
        return Reply.ok(AdminJson.tenant(t, quotas.quotasOf(t.tenantId())));
    }

    Reply deleteTenant(HttpCall call) throws ApiError, SQLException {
        return Reply.of(202, ResponsesJson.forgetRequested(admin.deleteTenant(call.parameter())));
    }

    Reply createWebhook(HttpCall call) throws ApiError, SQLException, IOException {
        JsonNode args = call.json(MemoryService.MAX_BODY_BYTES);
        return Reply.of(201, Webhooks.json(webhooks.create(call.tenant(), args), true));
    }

    Reply listWebhooks(HttpCall call) throws SQLException {
        ObjectNode answer = ResponsesJson.JSON.createObjectNode().put("tenant_id", call.tenant());
        ArrayNode list = answer.putArray("webhooks");
        webhooks.list(call.tenant()).forEach(w -> list.add(Webhooks.json(w, false)));
        return Reply.ok(answer);
    }

    Reply getWebhook(HttpCall call) throws ApiError, SQLException {
        return Reply.ok(Webhooks.json(webhooks.get(call.tenant(), call.parameter()), false));
    }

    Reply deleteWebhook(HttpCall call) throws ApiError, SQLException {
        webhooks.delete(call.tenant(), call.parameter());
        return Reply.of(204, null);
    }

    Reply resumeWebhook(HttpCall call) throws ApiError, SQLException {
        return Reply.ok(Webhooks.json(webhooks.resume(call.tenant(), call.parameter()), false));
    }

    Reply webhookDeliveries(HttpCall call) throws ApiError, SQLException {
        int limit = Arguments.limit(call.query(), 50, Webhooks.MAX_LOG_PAGE);
        ObjectNode answer = ResponsesJson.JSON.createObjectNode().put("webhook_id", call.parameter());
        ArrayNode log = answer.putArray("deliveries");
        webhooks.deliveries(call.tenant(), call.parameter(), limit).forEach(a -> log.add(Webhooks.json(a)));
        return Reply.ok(answer);
    }
}
