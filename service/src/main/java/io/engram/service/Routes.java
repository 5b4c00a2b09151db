package io.engram.service;

import static io.engram.service.Route.Access.DIRECTORY;
import static io.engram.service.Route.Access.OPERATOR;
import static io.engram.service.Route.Access.PUBLIC;
import static io.engram.service.Route.Access.READ;
import static io.engram.service.Route.Access.TENANT;
import static io.engram.service.Scope.ADMIN;
import static io.engram.service.Scope.FORGET;
import static io.engram.service.Scope.WRITE;

import io.engram.client.PayloadKind;
import io.engram.model.retrieval.ForgetScope;
import java.io.IOException;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/** The HTTP API's route table: every endpoint once, with its handler, in the order {@code /openapi.json} lists them. */
public final class Routes {

    /** Answers one request of a route. */
    interface Handler {
        Reply handle(HttpApi api, HttpCall call) throws ApiError, SQLException, IOException;
    }

    /** A route and its handler. */
    record Endpoint(Route route, Handler handler) {
        /** A route its access alone allows: none for a public one, else a key that reads. */
        Endpoint(String method, String template, Route.Access access, String operationId, Handler handler) {
            this(method, template, access, access == PUBLIC ? null : Scope.READ, operationId, handler);
        }

        Endpoint(String method, String template, Route.Access access, Scope scope, String operationId, Handler handler) {
            this(new Route(method, template, access, scope, operationId), handler);
        }
    }

    private static final List<Endpoint> TABLE = List.of(
            new Endpoint("GET", "/healthz", PUBLIC, "liveness", HttpApi::liveness),
            new Endpoint("GET", "/readyz", PUBLIC, "readiness", HttpApi::readiness),
            new Endpoint("GET", "/metrics", PUBLIC, "metrics", HttpApi::metrics),
            new Endpoint("GET", "/openapi.json", PUBLIC, "openApi", HttpApi::openApi),
            new Endpoint("POST", "/v1/turns", TENANT, WRITE, "writeTurns", (api, call) -> api.write(call, PayloadKind.TURN)),
            new Endpoint("POST", "/v1/memories", TENANT, WRITE, "writeMemories",
                    (api, call) -> api.write(call, PayloadKind.MEMORY)),
            new Endpoint("GET", "/v1/memories", READ, "listRecords", HttpApi::list),
            new Endpoint("GET", "/v1/entities", READ, "listEntities", HttpApi::entities),
            new Endpoint("GET", "/v1/export", READ, "exportRecords", HttpApi::export),
            new Endpoint("POST", "/v1/documents", TENANT, WRITE, "writeDocument", (api, call) -> api.write(call, PayloadKind.DOC)),
            new Endpoint("POST", "/v1/import", TENANT, WRITE, "importRecords", HttpApi::importRecords),
            new Endpoint("POST", "/v1/context", READ, "assembleContext", HttpApi::context),
            new Endpoint("POST", "/v1/search", READ, "search", HttpApi::search),
            new Endpoint("GET", "/v1/memories/{id}", READ, "getRecord", HttpApi::get),
            new Endpoint("DELETE", "/v1/memories/{id}", TENANT, FORGET, "forgetRecord",
                    (api, call) -> api.forget(call, ForgetScope.MEMORY)),
            new Endpoint("DELETE", "/v1/sessions/{session_id}", TENANT, FORGET, "forgetSession",
                    (api, call) -> api.forget(call, ForgetScope.SESSION)),
            new Endpoint("DELETE", "/v1/users/{user_id}", TENANT, FORGET, "forgetUser",
                    (api, call) -> api.forget(call, ForgetScope.USER)),
            new Endpoint("GET", "/v1/forgets/{forget_id}", READ, "forgetStatus", HttpApi::forgetStatus),
            new Endpoint("POST", "/mcp", TENANT, "mcp", HttpApi::mcp),
            new Endpoint("GET", "/v1/health", READ, "memoryHealth", HttpApi::health),
            new Endpoint("GET", "/v1/rejects", READ, "rejects", HttpApi::rejects),
            new Endpoint("GET", "/v1/tenants", DIRECTORY, "tenants", HttpApi::tenants),
            new Endpoint("GET", "/v1/usage", READ, "usage", HttpApi::usage),
            new Endpoint("POST", "/v1/keys", READ, ADMIN, "createKey", HttpApi::createKey),
            new Endpoint("GET", "/v1/keys", READ, ADMIN, "listKeys", HttpApi::listKeys),
            new Endpoint("POST", "/v1/keys/{key_id}/rotate", READ, ADMIN, "rotateKey", HttpApi::rotateKey),
            new Endpoint("DELETE", "/v1/keys/{key_id}", READ, ADMIN, "revokeKey", HttpApi::revokeKey),
            new Endpoint("POST", "/v1/webhooks", READ, ADMIN, "createWebhook", HttpApi::createWebhook),
            new Endpoint("GET", "/v1/webhooks", READ, ADMIN, "listWebhooks", HttpApi::listWebhooks),
            new Endpoint("GET", "/v1/webhooks/{webhook_id}", READ, ADMIN, "getWebhook", HttpApi::getWebhook),
            new Endpoint("DELETE", "/v1/webhooks/{webhook_id}", READ, ADMIN, "deleteWebhook", HttpApi::deleteWebhook),
            new Endpoint("POST", "/v1/webhooks/{webhook_id}/resume", READ, ADMIN, "resumeWebhook", HttpApi::resumeWebhook),
            new Endpoint("GET", "/v1/webhooks/{webhook_id}/deliveries", READ, ADMIN, "webhookDeliveries",
                    HttpApi::webhookDeliveries),
            new Endpoint("POST", "/v1/admin/tenants", OPERATOR, ADMIN, "createTenant", HttpApi::createTenant),
            new Endpoint("GET", "/v1/admin/tenants", OPERATOR, ADMIN, "listTenants", HttpApi::listTenants),
            new Endpoint("GET", "/v1/admin/tenants/{tenant_id}", OPERATOR, ADMIN, "getTenant", HttpApi::getTenant),
            new Endpoint("PATCH", "/v1/admin/tenants/{tenant_id}", OPERATOR, ADMIN, "updateTenant", HttpApi::updateTenant),
            new Endpoint("DELETE", "/v1/admin/tenants/{tenant_id}", OPERATOR, ADMIN, "deleteTenant", HttpApi::deleteTenant),
            new Endpoint("GET", "/v1/admin/usage", OPERATOR, ADMIN, "allUsage", HttpApi::allUsage),
            new Endpoint("GET", "/console/", PUBLIC, "console", HttpApi::console),
            new Endpoint("GET", "/console/{file}", PUBLIC, "consoleFile", HttpApi::console));

    /** Every endpoint. */
    public static final List<Route> ALL = TABLE.stream().map(Endpoint::route).toList();

    /** A request's endpoint and its decoded path parameter ("" for a route without one). */
    record Match(Endpoint endpoint, String parameter) {
        Route route() {
            return endpoint.route();
        }
    }

    private Routes() {
    }

    /** The route of a request; 404 when no route has its path, 405 when only other methods do. */
    static Match find(String method, String rawPath) throws ApiError {
        boolean otherMethod = false;
        for (Endpoint endpoint : TABLE) {
            Optional<String> parameter = endpoint.route().matchPath(rawPath);
            if (parameter.isPresent() && endpoint.route().method().equals(method)) {
                return new Match(endpoint, parameter.get());
            }
            otherMethod |= parameter.isPresent();
        }
        throw otherMethod ? new ApiError(405, "method_not_allowed", method + " is not allowed on " + rawPath)
                : ApiError.notFound("no such endpoint: " + rawPath);
    }
}
