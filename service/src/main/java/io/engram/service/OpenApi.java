package io.engram.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * The API's OpenAPI 3.1 document, {@code GET /openapi.json}. Its {@code paths} come from the route table
 * ({@link Routes#ALL}): each route's operation is described in the resource {@code openapi.json} under
 * {@code x-operations} by its {@link Route#operationId()}, and a public route declares that it needs no key.
 * A route without a description, or a description without a route, stops the service from loading.
 */
public final class OpenApi {

    private static final String OPERATIONS = "x-operations";
    private static final JsonNode DOCUMENT = build(load());

    private OpenApi() {
    }

    public static JsonNode document() {
        return DOCUMENT;
    }

    static ObjectNode build(ObjectNode source) {
        ObjectNode document = source.deepCopy();
        JsonNode operations = document.remove(OPERATIONS);
        ObjectNode paths = document.putObject("paths");
        Set<String> described = new HashSet<>();
        for (Route route : Routes.ALL) {
            JsonNode operation = operations.get(route.operationId());
            if (!(operation instanceof ObjectNode known) || !described.add(route.operationId())) {
                throw new IllegalStateException("openapi.json describes no operation " + route.operationId()
                        + " of its own for " + route);
            }
            ObjectNode served = known.deepCopy().put("operationId", route.operationId());
            if (route.access() == Route.Access.PUBLIC) {
                served.putArray("security");
            }
            paths.withObjectProperty(route.template()).set(route.method().toLowerCase(Locale.ROOT), served);
        }
        if (described.size() != operations.size()) {
            throw new IllegalStateException("openapi.json describes operations no route serves");
        }
        return document;
    }

    private static ObjectNode load() {
        try (InputStream in = OpenApi.class.getResourceAsStream("/engram/service/openapi.json")) {
            return (ObjectNode) ResponsesJson.JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
