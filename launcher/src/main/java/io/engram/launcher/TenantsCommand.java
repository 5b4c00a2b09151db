package io.engram.launcher;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.service.ResponsesJson;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ./engram tenants}: make, list, suspend, resume and delete tenants, set their quotas, read their usage. */
@Command(name = "tenants", mixinStandardHelpOptions = true,
        description = "Administer the memory service's tenants with the admin key (docs/operations.md,"
                + " \"Tenants, keys and quotas\").")
final class TenantsCommand {

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Mixin
    AdminOptions service;

    /** A tenant's own quotas; an option not given leaves that quota as it is (the service's default for a new tenant). */
    static final class Quotas {
        @Option(names = "--records", paramLabel = "N", description = "Records it may store (all but summaries and windows).")
        Long records;

        @Option(names = "--text-bytes-per-day", paramLabel = "N", description = "UTF-8 bytes of text it may write a UTC day.")
        Long textBytesPerDay;

        @Option(names = "--writes-per-second", paramLabel = "R", description = "Write requests per second.")
        Double writesPerSecond;

        @Option(names = "--reads-per-second", paramLabel = "R", description = "Read requests per second.")
        Double readsPerSecond;

        ObjectNode json() {
            ObjectNode q = ResponsesJson.JSON.createObjectNode();
            if (records != null) {
                q.put("records", records);
            }
            if (textBytesPerDay != null) {
                q.put("text_bytes_per_day", textBytesPerDay);
            }
            if (writesPerSecond != null) {
                q.put("writes_per_second", writesPerSecond);
            }
            if (readsPerSecond != null) {
                q.put("reads_per_second", readsPerSecond);
            }
            return q;
        }
    }

    private PrintWriter out() {
        return spec.commandLine().getOut();
    }

    private static String path(String tenant) {
        return "/v1/admin/tenants/" + TenantApi.segment(tenant);
    }

    @Command(name = "create", description = "Make a tenant, with quotas of its own.")
    int create(@Parameters(paramLabel = "TENANT") String tenant, @Mixin Quotas quotas) throws Exception {
        ObjectNode body = ResponsesJson.JSON.createObjectNode().put("tenant_id", tenant);
        body.set("quotas", quotas.json());
        return service.call(out(), "POST", "/v1/admin/tenants", body, null);
    }

    @Command(name = "list", description = "Every tenant made by API, its status and quotas.")
    int list() throws Exception {
        return service.call(out(), "GET", "/v1/admin/tenants", null, null);
    }

    @Command(name = "show", description = "One tenant, its status and quotas.")
    int show(@Parameters(paramLabel = "TENANT") String tenant) throws Exception {
        return service.call(out(), "GET", path(tenant), null, null);
    }

    @Command(name = "set-quotas", description = "Set a tenant's quotas.")
    int setQuotas(@Parameters(paramLabel = "TENANT") String tenant, @Mixin Quotas quotas) throws Exception {
        ObjectNode body = ResponsesJson.JSON.createObjectNode();
        body.set("quotas", quotas.json());
        return service.call(out(), "PATCH", path(tenant), body, null);
    }

    @Command(name = "suspend", description = "Refuse the tenant's keys until it is resumed.")
    int suspend(@Parameters(paramLabel = "TENANT") String tenant) throws Exception {
        return service.call(out(), "PATCH", path(tenant), ResponsesJson.JSON.createObjectNode().put("status", "suspended"), null);
    }

    @Command(name = "resume", description = "Serve a suspended tenant again.")
    int resume(@Parameters(paramLabel = "TENANT") String tenant) throws Exception {
        return service.call(out(), "PATCH", path(tenant), ResponsesJson.JSON.createObjectNode().put("status", "active"), null);
    }

    @Command(name = "delete", description = "Delete a tenant: its keys stop working, its records are forgotten.")
    int delete(@Parameters(paramLabel = "TENANT") String tenant) throws Exception {
        return service.call(out(), "DELETE", path(tenant), null, null);
    }

    @Command(name = "usage", description = "Usage per tenant and UTC day (one tenant's with --tenant).")
    int usage(@Option(names = "--tenant", paramLabel = "TENANT") String tenant,
              @Option(names = "--from", paramLabel = "YYYY-MM-DD") String from,
              @Option(names = "--to", paramLabel = "YYYY-MM-DD") String to) throws Exception {
        String query = (from == null ? "" : "&from=" + from) + (to == null ? "" : "&to=" + to);
        String route = tenant == null ? "/v1/admin/usage" : "/v1/usage";
        return service.call(out(), "GET", route + (query.isEmpty() ? "" : "?" + query.substring(1)), null, tenant);
    }
}
