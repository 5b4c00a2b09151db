package io.engram.service;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One request as a route's handler sees it: who called (null on a public route) and for which tenant, the path
 * parameter, the query string and the body, read within a bound.
 */
final class HttpCall {

    private final HttpExchange exchange;
    private final ApiKeys.Caller caller;
    private final String tenant;
    private final String parameter;

    HttpCall(HttpExchange exchange, ApiKeys.Caller caller, String tenant, String parameter) {
        this.exchange = exchange;
        this.caller = caller;
        this.tenant = tenant;
        this.parameter = parameter;
    }

    ApiKeys.Caller caller() {
        return caller;
    }

    /** The tenant the call acts for ({@link ApiKeys#OPERATOR} for an operator key on a directory route). */
    String tenant() {
        return tenant;
    }

    /** The decoded path parameter, "" on a route without one. */
    String parameter() {
        return parameter;
    }

    /** The query string's parameters, decoded; empty values left out. */
    Map<String, String> query() {
        Map<String, String> params = new LinkedHashMap<>();
        String raw = exchange.getRequestURI().getRawQuery();
        if (raw == null || raw.isEmpty()) {
            return params;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            if (!value.isEmpty()) {
                params.put(name, value);
            }
        }
        return params;
    }

    /** The body as it arrives, unbounded: for a route that reads it a piece at a time (an import). */
    InputStream body() {
        return exchange.getRequestBody();
    }

    /** The body; 413 when it is longer than {@code maxBytes}. */
    byte[] bytes(int maxBytes) throws ApiError, IOException {
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
            body = in.readNBytes(maxBytes + 1);
        }
        if (body.length > maxBytes) {
            throw new ApiError(413, "request_too_large", "this request body is limited to " + maxBytes + " bytes");
        }
        return body;
    }

    /** The body as a JSON object; 413 when too long, 400 when it is not a JSON object. */
    JsonNode json(int maxBytes) throws ApiError, IOException {
        byte[] body = bytes(maxBytes);
        try {
            JsonNode json = ResponsesJson.JSON.readTree(body);
            if (json == null || !json.isObject()) {
                throw new ApiError(400, "invalid_json", "the body must be a JSON object");
            }
            return json;
        } catch (JsonProcessingException e) {
            throw new ApiError(400, "invalid_json", "the body is not valid JSON: " + e.getOriginalMessage());
        }
    }
}
