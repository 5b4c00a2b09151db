package io.engram.service;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * An endpoint of the HTTP API: its method and path template ({@code {name}} is one URL-encoded path segment,
 * possibly followed by a fixed tail), which keys may call it for which tenant, the {@link Scope} the key needs,
 * and the operation of the OpenAPI document that describes it. {@link Routes#ALL} lists them all, each with its
 * handler; dispatch, key checks and {@code /openapi.json} read nothing else.
 */
public record Route(String method, String template, Access access, Scope scope, String operationId) {

    /** Which keys may call a route, and for which tenant. */
    public enum Access {
        /** Anyone, without a key: the operations endpoints and the console's files. */
        PUBLIC,
        /** A tenant's key, for its tenant: writes, forgets, MCP. An operator key is refused. */
        TENANT,
        /** A tenant's key for its tenant, or an operator key for the tenant it names in {@code X-Engram-Tenant}. */
        READ,
        /** Any key: a tenant's key for its tenant, an operator key for every tenant at once. */
        DIRECTORY,
        /** An operator key only, for every tenant: making, changing and deleting tenants. */
        OPERATOR
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
        String tail = template.substring(template.indexOf('}') + 1);
        if (!rawPath.startsWith(prefix) || !rawPath.endsWith(tail) || rawPath.length() <= prefix.length() + tail.length()) {
            return Optional.empty();
        }
        String segment = rawPath.substring(prefix.length(), rawPath.length() - tail.length());
        return segment.indexOf('/') >= 0 ? Optional.empty()
                : Optional.of(URLDecoder.decode(segment, StandardCharsets.UTF_8));
    }
}
