package io.engram.service;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * An endpoint of the HTTP API: its method and path template ({@code {name}} is one URL-encoded path segment),
 * who may call it, and the operation of the OpenAPI document that describes it. {@link Routes#ALL} lists them
 * all, each with its handler; dispatch, key checks and {@code /openapi.json} read nothing else.
 */
public record Route(String method, String template, Access access, String operationId) {

    /** Who may call a route, and for which tenant. */
    public enum Access {
        /** Anyone, without a key: the operations endpoints and the console's files. */
        PUBLIC,
        /** A tenant's key, for its tenant: writes, forgets, MCP. An operator key is refused. */
        TENANT,
        /** A tenant's key for its tenant, or an operator key for the tenant it names in {@code X-Engram-Tenant}. */
        READ,
        /** Any key: a tenant's key for its tenant, an operator key for every tenant at once. */
        DIRECTORY
    }

    /** {@code METHOD template}, as metrics and messages name the route. */
    @Override
    public String toString() {
        return method + " " + template;
    }

    /** The decoded path parameter ("" for a template without one) when {@code rawPath} is this route's path. */
    Optional<String> matchPath(String rawPath) {
        int brace = template.indexOf('{');
        if (brace < 0) {
            return template.equals(rawPath) ? Optional.of("") : Optional.empty();
        }
        String prefix = template.substring(0, brace);
        if (!rawPath.startsWith(prefix) || rawPath.length() == prefix.length()
                || rawPath.indexOf('/', prefix.length()) >= 0) {
            return Optional.empty();
        }
        return Optional.of(URLDecoder.decode(rawPath.substring(prefix.length()), StandardCharsets.UTF_8));
    }
}
