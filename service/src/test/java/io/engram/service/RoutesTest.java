package io.engram.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The route table: who may call what, how a path finds its route, and the OpenAPI paths made from it. */
class RoutesTest {

    @Test
    void whoMayCallWhatIsPinned() {
        Map<String, Route.Access> access = new LinkedHashMap<>();
        Routes.ALL.forEach(r -> access.put(r.toString(), r.access()));
        Map<Route.Access, List<String>> byAccess = access.entrySet().stream().collect(Collectors.groupingBy(
                Map.Entry::getValue, Collectors.mapping(Map.Entry::getKey, Collectors.toList())));
        assertThat(byAccess.get(Route.Access.PUBLIC)).containsExactlyInAnyOrder("GET /healthz", "GET /readyz",
                "GET /metrics", "GET /openapi.json", "GET /console/", "GET /console/{file}");
        assertThat(byAccess.get(Route.Access.READ)).as("what an operator key may read of a named tenant")
                .containsExactlyInAnyOrder("GET /v1/memories", "GET /v1/entities", "GET /v1/export", "GET /v1/memories/{id}",
                        "POST /v1/context",
                        "POST /v1/search", "GET /v1/forgets/{forget_id}", "GET /v1/health", "GET /v1/rejects",
                        "GET /v1/usage", "POST /v1/keys", "GET /v1/keys", "POST /v1/keys/{key_id}/rotate",
                        "DELETE /v1/keys/{key_id}", "POST /v1/webhooks", "GET /v1/webhooks",
                        "GET /v1/webhooks/{webhook_id}", "DELETE /v1/webhooks/{webhook_id}",
                        "POST /v1/webhooks/{webhook_id}/resume", "GET /v1/webhooks/{webhook_id}/deliveries");
        assertThat(byAccess.get(Route.Access.OPERATOR)).as("an operator admin key's only").containsExactlyInAnyOrder(
                "POST /v1/admin/tenants", "GET /v1/admin/tenants", "GET /v1/admin/tenants/{tenant_id}",
                "PATCH /v1/admin/tenants/{tenant_id}", "DELETE /v1/admin/tenants/{tenant_id}", "GET /v1/admin/usage");
        assertThat(byAccess.get(Route.Access.DIRECTORY)).containsExactly("GET /v1/tenants");
        assertThat(byAccess.get(Route.Access.TENANT)).containsExactlyInAnyOrder("POST /v1/turns", "POST /v1/memories",
                "POST /v1/documents", "POST /v1/import", "DELETE /v1/memories/{id}", "DELETE /v1/sessions/{session_id}",
                "DELETE /v1/users/{user_id}", "POST /mcp");
        assertThat(Routes.ALL.stream().map(Route::operationId).distinct()).hasSameSizeAs(Routes.ALL);
    }

    @Test
    void eachRouteNeedsTheScopeOfWhatItDoes() {
        Map<Scope, List<String>> byScope = Routes.ALL.stream().filter(r -> r.scope() != null).collect(Collectors.groupingBy(
                Route::scope, Collectors.mapping(Route::toString, Collectors.toList())));
        assertThat(byScope.get(Scope.WRITE)).containsExactlyInAnyOrder("POST /v1/turns", "POST /v1/memories",
                "POST /v1/documents", "POST /v1/import");
        assertThat(byScope.get(Scope.FORGET)).containsExactlyInAnyOrder("DELETE /v1/memories/{id}",
                "DELETE /v1/sessions/{session_id}", "DELETE /v1/users/{user_id}");
        assertThat(byScope.get(Scope.ADMIN)).hasSize(16).allMatch(r -> r.contains("/v1/keys") || r.contains("/v1/admin/")
                || r.contains("/v1/webhooks"));
        assertThat(Routes.ALL).filteredOn(r -> r.scope() == null).allMatch(r -> r.access() == Route.Access.PUBLIC);
    }

    @Test
    void aPathFindsItsRouteAndItsDecodedParameter() throws ApiError {
        Routes.Match match = Routes.find("DELETE", "/v1/memories/acme%2Fm-1");
        assertThat(match.route().toString()).isEqualTo("DELETE /v1/memories/{id}");
        assertThat(match.parameter()).isEqualTo("acme/m-1");
        assertThat(Routes.find("GET", "/console/").route().operationId()).isEqualTo("console");
        assertThat(Routes.find("GET", "/console/console.js").parameter()).isEqualTo("console.js");
        assertThat(Routes.find("GET", "/v1/memories").parameter()).isEmpty();
        assertThat(Routes.find("POST", "/v1/keys/key_01%2B/rotate").parameter()).as("a parameter before a fixed tail")
                .isEqualTo("key_01+");
        assertThat(Routes.find("DELETE", "/v1/keys/key_01").route().operationId()).isEqualTo("revokeKey");
        assertThat(Routes.find("GET", "/v1/webhooks/wh_1/deliveries").route().operationId()).isEqualTo("webhookDeliveries");
        assertThat(Routes.find("GET", "/v1/webhooks/wh_1").route().operationId()).isEqualTo("getWebhook");
        assertThatThrownBy(() -> Routes.find("POST", "/v1/keys//rotate")).hasMessage("no such endpoint: /v1/keys//rotate");
        assertThatThrownBy(() -> Routes.find("GET", "/v1/memories/")).hasMessage("no such endpoint: /v1/memories/");
        assertThatThrownBy(() -> Routes.find("POST", "/v1/memories/m-1"))
                .hasMessage("POST is not allowed on /v1/memories/m-1");
    }

    @Test
    void theOpenApiPathsAreTheRouteTable() {
        JsonNode paths = OpenApi.document().get("paths");
        for (Route route : Routes.ALL) {
            JsonNode operation = paths.path(route.template()).path(route.method().toLowerCase());
            assertThat(operation.path("operationId").asText()).as(route.toString()).isEqualTo(route.operationId());
            assertThat(operation.has("security")).as(route + " needs no key").isEqualTo(route.access() == Route.Access.PUBLIC);
            assertThat(operation.path("security")).as(route.toString()).allMatch(JsonNode::isEmpty);
        }
        assertThat(OpenApi.document().has("x-operations")).isFalse();
    }

    @Test
    void anOperationWithoutARouteOrARouteWithoutAnOperationStopsTheDocument() throws Exception {
        ObjectNode source;
        try (InputStream in = OpenApi.class.getResourceAsStream("/engram/service/openapi.json")) {
            source = (ObjectNode) ResponsesJson.JSON.readTree(in);
        }
        ObjectNode missing = source.deepCopy();
        missing.withObjectProperty("x-operations").remove("forgetUser");
        assertThatThrownBy(() -> OpenApi.build(missing)).hasMessageContaining("no operation forgetUser of its own for DELETE /v1/users/{user_id}");
        ObjectNode extra = source.deepCopy();
        extra.withObjectProperty("x-operations").putObject("exportEverything").put("summary", "unserved");
        assertThatThrownBy(() -> OpenApi.build(extra)).hasMessageContaining("operations no route serves");
        assertThat(OpenApi.build(source)).isEqualTo(OpenApi.document());
    }
}
