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

/** {@code ./engram webhooks}: register, show, resume and delete a tenant's webhooks, and read their delivery logs. */
@Command(name = "webhooks", mixinStandardHelpOptions = true,
        description = "Administer a tenant's webhooks, each sent every change of its memory (docs/operations.md,"
                + " \"Webhooks\"). A webhook's signing secret is printed once, when it is registered.")
final class WebhooksCommand {

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Mixin
    AdminOptions service;

    @Option(names = "--tenant", required = true, paramLabel = "TENANT", scope = picocli.CommandLine.ScopeType.INHERIT,
            description = "The tenant whose webhooks these are.")
    String tenant;

    private PrintWriter out() {
        return spec.commandLine().getOut();
    }

    @Command(name = "create", description = "Register a webhook.")
    int create(@Option(names = "--endpoint", required = true, paramLabel = "URL",
                       description = "Where its changes are POSTed (--url is the memory service's).") String url,
               @Option(names = "--kinds", split = ",", paramLabel = "KIND",
                       description = "The change kinds it takes (default: every kind).") List<String> kinds,
               @Option(names = "--description", paramLabel = "TEXT") String description) throws Exception {
        ObjectNode body = ResponsesJson.JSON.createObjectNode().put("url", url);
        if (kinds != null) {
            ArrayNode list = body.putArray("kinds");
            kinds.forEach(list::add);
        }
        if (description != null) {
            body.put("description", description);
        }
        return service.call(out(), "POST", "/v1/webhooks", body, tenant);
    }

    @Command(name = "list", description = "The tenant's webhooks with their state, without their secrets.")
    int list() throws Exception {
        return service.call(out(), "GET", "/v1/webhooks", null, tenant);
    }

    @Command(name = "show", description = "A webhook's state: active or paused and why, failures, changes waiting.")
    int show(@Parameters(paramLabel = "WEBHOOK_ID") String webhookId) throws Exception {
        return service.call(out(), "GET", "/v1/webhooks/" + TenantApi.segment(webhookId), null, tenant);
    }

    @Command(name = "deliveries", description = "A webhook's delivery log, newest attempt first.")
    int deliveries(@Parameters(paramLabel = "WEBHOOK_ID") String webhookId,
                   @Option(names = "--limit", defaultValue = "50", paramLabel = "N",
                           description = "Attempts to show (default: ${DEFAULT-VALUE}).") int limit) throws Exception {
        return service.call(out(), "GET", "/v1/webhooks/" + TenantApi.segment(webhookId) + "/deliveries?limit=" + limit,
                null, tenant);
    }

    @Command(name = "resume", description = "Send a paused webhook's changes again, from where it stopped.")
    int resume(@Parameters(paramLabel = "WEBHOOK_ID") String webhookId) throws Exception {
        return service.call(out(), "POST", "/v1/webhooks/" + TenantApi.segment(webhookId) + "/resume", null, tenant);
    }

    @Command(name = "delete", description = "Delete a webhook with the changes it had still to send.")
    int delete(@Parameters(paramLabel = "WEBHOOK_ID") String webhookId) throws Exception {
        return service.call(out(), "DELETE", "/v1/webhooks/" + TenantApi.segment(webhookId), null, tenant);
    }
}
