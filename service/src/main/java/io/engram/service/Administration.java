package io.engram.service;

import com.fasterxml.jackson.databind.JsonNode;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Tenants, keys and usage, administered (docs/operations.md, "Tenants, keys and quotas"): what the admin routes
 * and {@code ./engram tenants} and {@code ./engram keys} do. Every change goes to the {@link TenantStore} first and
 * this replica's {@link KeyDirectory} reloads at once; other replicas see it within their poll. A deleted tenant's
 * records go through the forget path, like a user's.
 */
final class Administration {

    /** A key as made: its record and its secret, shown this once. */
    record MadeKey(TenantStore.Key key, String secret) {
    }

    static final int MAX_USAGE_DAYS = 366;

    private final KeyDirectory directory;
    private final Operations operations;
    private final UsageMeter meter;
    private final UsageLedger ledger;
    private final WebhookStore webhooks;
    private final Clock clock;

    Administration(KeyDirectory directory, Operations operations, UsageMeter meter, UsageLedger ledger,
                   WebhookStore webhooks, Clock clock) {
        this.directory = directory;
        this.operations = operations;
        this.meter = meter;
        this.ledger = ledger;
        this.webhooks = webhooks;
        this.clock = clock;
    }

    TenantStore.Tenant createTenant(JsonNode args) throws ApiError, SQLException {
        String tenantId = Arguments.requiredText(args, "tenant_id");
        if (!ApiKeys.isTenantId(tenantId)) {
            throw ApiError.invalid("a tenant id is 1 to 63 of a-z, 0-9, _ and -, starting with a letter or digit");
        }
        if (!directory.store().createTenant(tenantId, quotas(args), clock.instant())) {
            throw new ApiError(409, "tenant_exists", "tenant " + tenantId + " exists");
        }
        directory.reload();
        return tenant(tenantId);
    }

    TenantStore.Tenant tenant(String tenantId) throws ApiError {
        return directory.tenant(tenantId).orElseThrow(() -> ApiError.notFound("no tenant " + tenantId));
    }

    List<TenantStore.Tenant> tenants() {
        return directory.tenants();
    }

    /** Sets the tenant's {@code status} (active or suspended) and the quotas {@code args} name. */
    TenantStore.Tenant updateTenant(String tenantId, JsonNode args) throws ApiError, SQLException {
        String status = Arguments.optionalText(args, "status");
        if (status != null && !status.equals("active") && !status.equals("suspended")) {
            throw ApiError.invalid("status is active or suspended (a tenant is deleted with DELETE)");
        }
        if (tenant(tenantId).status() == TenantStore.Status.DELETING) {
            throw new ApiError(409, "tenant_deleting", "tenant " + tenantId + " is being deleted");
        }
        TenantStore.Status newStatus = status == null ? null : TenantStore.Status.ofLabel(status);
        directory.store().updateTenant(tenantId, newStatus, quotas(args));
        directory.reload();
        return tenant(tenantId);
    }

    /**
     * Deletes a tenant: its keys (the key file's too) stop working at once, and its records are forgotten through
     * the forget path with a {@code forgets} row, and its webhooks go, with what they had still to deliver. A retry
     * sends the same forget again; the forget applies once.
     */
    Operations.ForgetReceipt deleteTenant(String tenantId) throws ApiError, SQLException {
        if (!ApiKeys.isTenantId(tenantId)) {
            throw ApiError.invalid("not a tenant id: " + tenantId);
        }
        Instant now = clock.instant();
        String forgetId = directory.store().markDeleting(tenantId, "fgt-" + UUID.randomUUID(), now);
        directory.reload();
        webhooks.deleteTenant(tenantId);
        return operations.forgetTenant(tenantId, forgetId, now);
    }

    MadeKey createKey(String tenantId, JsonNode args) throws ApiError, SQLException {
        String name = Arguments.requiredText(args, "name");
        Set<Scope> scopes = scopes(args);
        Instant expires = Arguments.instant(args, "expires_at", null);
        return make(tenantId, name, scopes, expires, null);
    }

    /** A new secret for the key, its name, scopes and expiry kept; the old secret stops working at once. */
    MadeKey rotateKey(String tenantId, String keyId) throws ApiError, SQLException {
        TenantStore.Key old = directory.keys(tenantId).stream().filter(k -> k.keyId().equals(keyId)).findFirst()
                .orElseThrow(() -> ApiError.notFound("no key " + keyId));
        return make(tenantId, old.name(), old.scopes(), old.expiresAt(), keyId);
    }

    private MadeKey make(String tenantId, String name, Set<Scope> scopes, Instant expires, String replaces)
            throws ApiError, SQLException {
        if (directory.tenant(tenantId).map(t -> t.status() == TenantStore.Status.DELETING).orElse(false)) {
            throw new ApiError(409, "tenant_deleting", "tenant " + tenantId + " is being deleted");
        }
        String secret = ApiKeys.newSecret();
        byte[] digest = ApiKeys.digest(secret);
        TenantStore.Key key = new TenantStore.Key("key_" + HexFormat.of().formatHex(ApiKeys.digest(UUID.randomUUID()
                .toString()), 0, 8), tenantId, name, scopes, clock.instant(), expires);
        directory.store().createKey(key, digest, replaces);
        directory.reload();
        return new MadeKey(key, secret);
    }

    List<TenantStore.Key> keys(String tenantId) {
        return directory.keys(tenantId);
    }

    void revokeKey(String tenantId, String keyId) throws ApiError, SQLException {
        if (!directory.store().revokeKey(tenantId, keyId, clock.instant())) {
            throw ApiError.notFound("no key " + keyId);
        }
        directory.reload();
    }

    /** The tenant's usage rows (every tenant's when null) from {@code from} to {@code to}, this replica's flushed. */
    List<UsageLedger.Usage> usage(String tenantId, java.util.Map<String, String> query) throws ApiError, SQLException {
        LocalDate today = LocalDate.now(clock.withZone(ZoneOffset.UTC));
        LocalDate from = day(query, "from", today.minusDays(30));
        LocalDate to = day(query, "to", today);
        if (to.isBefore(from) || from.plusDays(MAX_USAGE_DAYS).isBefore(to)) {
            throw ApiError.invalid("from..to is 1 to " + MAX_USAGE_DAYS + " days, from first");
        }
        meter.flush();
        return ledger.rows(tenantId, from, to);
    }

    private static LocalDate day(java.util.Map<String, String> query, String name, LocalDate fallback) throws ApiError {
        try {
            return query.containsKey(name) ? LocalDate.parse(query.get(name)) : fallback;
        } catch (java.time.format.DateTimeParseException e) {
            throw ApiError.invalid(name + " is a day, YYYY-MM-DD");
        }
    }

    private static Set<Scope> scopes(JsonNode args) throws ApiError {
        JsonNode scopes = args.get("scopes");
        if (scopes == null) {
            return Set.of(Scope.READ);
        }
        StringBuilder labels = new StringBuilder();
        scopes.forEach(s -> labels.append(s.asText()).append(','));
        try {
            return Scope.parse(scopes.isArray() ? labels.toString() : scopes.asText());
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid(e.getMessage());
        }
    }

    /** The quotas {@code args.quotas} sets: records, text_bytes_per_day, writes_per_second, reads_per_second. */
    private static TenantStore.Quotas quotas(JsonNode args) throws ApiError {
        JsonNode q = args.path("quotas");
        if (!q.isMissingNode() && !q.isObject()) {
            throw ApiError.invalid("quotas is an object");
        }
        Long records = positiveLong(q, "records");
        Long bytes = positiveLong(q, "text_bytes_per_day");
        return new TenantStore.Quotas(records, bytes, positiveRate(q, "writes_per_second"),
                positiveRate(q, "reads_per_second"));
    }

    private static Long positiveLong(JsonNode q, String field) throws ApiError {
        JsonNode v = q.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.canConvertToLong() || !v.isIntegralNumber() || v.asLong() < 0) {
            throw ApiError.invalid("quotas." + field + " is a whole number, 0 or more");
        }
        return v.asLong();
    }

    private static Double positiveRate(JsonNode q, String field) throws ApiError {
        JsonNode v = q.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isNumber() || v.asDouble() <= 0) {
            throw ApiError.invalid("quotas." + field + " is a number above 0");
        }
        return v.asDouble();
    }
}
