package io.engram.launcher;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.service.ResponsesJson;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ./engram keys}: make, list, rotate and revoke a tenant's keys. */
@Command(name = "keys", mixinStandardHelpOptions = true,
        description = "Administer a tenant's API keys (docs/operations.md, \"Tenants, keys and quotas\"). A key's"
                + " secret is printed once, when it is made or rotated.")
final class KeysCommand {

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Mixin
    AdminOptions service;

    @Option(names = "--tenant", required = true, paramLabel = "TENANT", scope = picocli.CommandLine.ScopeType.INHERIT,
            description = "The tenant whose keys these are.")
    String tenant;

    private PrintWriter out() {
        return spec.commandLine().getOut();
    }

    @Command(name = "create", description = "Make a key.")
    int create(@Option(names = "--name", required = true, paramLabel = "NAME") String name,
               @Option(names = "--scopes", split = ",", defaultValue = "read", paramLabel = "SCOPE",
                       description = "read, write, forget, admin (default: ${DEFAULT-VALUE}).") List<String> scopes,
               @Option(names = "--expires-at", paramLabel = "ISO-8601", description = "When it stops working.")
               String expiresAt) throws Exception {
        ObjectNode body = ResponsesJson.JSON.createObjectNode().put("name", name);
        ArrayNode labels = body.putArray("scopes");
        scopes.forEach(labels::add);
        if (expiresAt != null) {
            body.put("expires_at", expiresAt);
        }
        return service.call(out(), "POST", "/v1/keys", body, tenant);
    }

    @Command(name = "list", description = "The tenant's keys, without their secrets.")
    int list() throws Exception {
        return service.call(out(), "GET", "/v1/keys", null, tenant);
    }

    @Command(name = "rotate", description = "A new secret for a key; the old one stops working at once.")
    int rotate(@Parameters(paramLabel = "KEY_ID") String keyId) throws Exception {
        return service.call(out(), "POST", "/v1/keys/" + TenantApi.segment(keyId) + "/rotate", null, tenant);
    }

    @Command(name = "revoke", description = "Revoke a key.")
    int revoke(@Parameters(paramLabel = "KEY_ID") String keyId) throws Exception {
        return service.call(out(), "DELETE", "/v1/keys/" + TenantApi.segment(keyId), null, tenant);
    }
}
