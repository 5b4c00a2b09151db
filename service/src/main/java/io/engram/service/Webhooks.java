package io.engram.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.security.SecureRandom;
import java.sql.SQLException;
import java.time.Clock;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * A tenant's webhooks, registered (docs/operations.md, "Webhooks"): what the {@code /v1/webhooks} routes do, with
 * their arguments checked, and the JSON they answer. Delivery is the {@link WebhookDispatcher}'s.
 */
final class Webhooks {

    static final int MAX_PER_TENANT = 20;
    static final int MAX_URL_CHARS = 2048;
    static final int MAX_LOG_PAGE = 1000;
    /** The change kinds of the published schema (docs/schemas/change.v1.json), the one list of them. */
    static final Set<String> CHANGE_KINDS = changeKinds();

    private final WebhookStore store;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    Webhooks(WebhookStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /** Registers a webhook: {@code url}, optional {@code kinds} and {@code description}; its secret is made here. */
    WebhookStore.Registered create(String tenantId, JsonNode args) throws ApiError, SQLException {
        String url = url(Arguments.requiredText(args, "url"));
        Set<String> kinds = kinds(args.get("kinds"));
        String description = Arguments.optionalText(args, "description");
        if (store.list(tenantId).size() >= MAX_PER_TENANT) {
            throw new ApiError(409, "too_many_webhooks", "a tenant has at most " + MAX_PER_TENANT + " webhooks");
        }
        WebhookStore.Webhook webhook = new WebhookStore.Webhook("wh_" + hex(8), tenantId, url, kinds,
                description == null ? "" : description, hex(32), clock.instant());
        store.create(webhook);
        return get(tenantId, webhook.webhookId());
    }

    List<WebhookStore.Registered> list(String tenantId) throws SQLException {
        return store.list(tenantId);
    }

    /** The tenant's webhook; 404 when the tenant has none of that id. */
    WebhookStore.Registered get(String tenantId, String webhookId) throws ApiError, SQLException {
        return store.find(webhookId).filter(r -> r.webhook().tenantId().equals(tenantId))
                .orElseThrow(() -> ApiError.notFound("no webhook " + webhookId));
    }

    void delete(String tenantId, String webhookId) throws ApiError, SQLException {
        if (!store.delete(tenantId, webhookId)) {
            throw ApiError.notFound("no webhook " + webhookId);
        }
    }

    /** Delivery starts again from the change where it stopped. */
    WebhookStore.Registered resume(String tenantId, String webhookId) throws ApiError, SQLException {
        if (!store.resume(tenantId, webhookId)) {
            throw ApiError.notFound("no webhook " + webhookId);
        }
        return get(tenantId, webhookId);
    }

    List<WebhookStore.Attempt> deliveries(String tenantId, String webhookId, int limit) throws ApiError, SQLException {
        return store.deliveries(get(tenantId, webhookId).webhook().webhookId(), limit);
    }

    private String hex(int bytes) {
        byte[] b = new byte[bytes];
        random.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** An absolute http or https URL with a host and no user name or password in it. */
    static String url(String text) throws ApiError {
        if (text.length() > MAX_URL_CHARS) {
            throw ApiError.invalid("url is longer than " + MAX_URL_CHARS + " characters");
        }
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw ApiError.invalid("url is not a URL: " + e.getMessage());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!uri.isAbsolute() || !(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
            throw ApiError.invalid("url must be an absolute http or https URL with a host, such as"
                    + " https://example.com/engram");
        }
        if (uri.getRawUserInfo() != null) {
            throw ApiError.invalid("url may not hold a user name or password (the signature authenticates Engram)");
        }
        return text;
    }

    /** The change kinds a webhook takes: every kind when absent, else a non-empty array of them. */
    static Set<String> kinds(JsonNode list) throws ApiError {
        if (list == null || list.isNull()) {
            return Set.of();
        }
        if (!list.isArray() || list.isEmpty()) {
            throw ApiError.invalid("kinds, when given, is a non-empty array of change kinds " + CHANGE_KINDS);
        }
        Set<String> kinds = new TreeSet<>();
        for (JsonNode kind : list) {
            if (!kind.isTextual() || !CHANGE_KINDS.contains(kind.asText())) {
                throw ApiError.invalid("unknown change kind " + kind + " (" + String.join(", ", CHANGE_KINDS) + ")");
            }
            kinds.add(kind.asText());
        }
        return kinds;
    }

    private static Set<String> changeKinds() {
        try (InputStream in = Webhooks.class.getResourceAsStream("/engram/schemas/change.v1.json")) {
            Set<String> kinds = new LinkedHashSet<>();
            ResponsesJson.JSON.readTree(in).at("/properties/kind/enum").forEach(k -> kinds.add(k.asText()));
            if (kinds.isEmpty()) {
                throw new IllegalStateException("change.v1.json lists no change kinds");
            }
            return Set.copyOf(kinds);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A webhook with its state; its secret only when {@code withSecret} (the answer that made it). */
    static ObjectNode json(WebhookStore.Registered r, boolean withSecret) {
        WebhookStore.Webhook w = r.webhook();
        WebhookStore.State s = r.state();
        ObjectNode o = ResponsesJson.JSON.createObjectNode().put("id", w.webhookId()).put("tenant_id", w.tenantId())
                .put("url", w.url()).put("description", w.description()).put("created_at", w.createdAt().toString());
        w.kinds().forEach(o.putArray("kinds")::add);
        if (withSecret) {
            o.put("secret", w.secret());
        }
        o.put("state", s.pause() == null ? "active" : "paused");
        o.put("paused_reason", s.pause() == null ? null : s.pause().reason());
        o.put("paused_since", s.pause() == null ? null : s.pause().since().toString());
        o.put("failures_in_row", s.failuresInRow());
        o.put("next_attempt_at", s.nextAttemptAt() == null ? null : s.nextAttemptAt().toString());
        o.put("last_delivered_at", s.lastDeliveredAt() == null ? null : s.lastDeliveredAt().toString());
        return o.put("pending", s.pending());
    }

    static ObjectNode json(WebhookStore.Attempt a) {
        return ResponsesJson.JSON.createObjectNode().put("change_id", a.changeId()).put("kind", a.kind())
                .put("attempt", a.attempt()).put("status", a.status()).put("error", a.error())
                .put("delivered", a.delivered()).put("at", a.at().toString());
    }
}
