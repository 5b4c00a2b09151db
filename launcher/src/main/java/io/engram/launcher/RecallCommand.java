package io.engram.launcher;

import io.engram.model.retrieval.AssembledContext;
import io.engram.retrieval.ContextService;
import io.engram.retrieval.Retrieval;
import io.engram.service.ResponsesJson;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "recall", mixinStandardHelpOptions = true,
        description = "Assemble a tenant's context for a query, straight from OpenSearch.")
final class RecallCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--tenant", required = true, paramLabel = "T", description = "The tenant (required: there is no query without one).")
    String tenant;

    @Option(names = "--query", required = true, paramLabel = "Q", description = "What to recall.")
    String query;

    @Option(names = "--session", paramLabel = "S", description = "Session whose recent raw tail to include.")
    String session;

    @Option(names = "--user", paramLabel = "U", description = "The asking user (scores same-user memories higher).")
    String user;

    @Option(names = "--budget", paramLabel = "N", description = "Token budget (default: ${DEFAULT-VALUE}).")
    int budget = 2000;

    @Option(names = "--as-of", paramLabel = "TIME", description = "The memories valid at this ISO-8601 time"
            + " (default: now), e.g. 2026-03-01T00:00:00Z.")
    java.time.OffsetDateTime asOf;

    @Option(names = "--agent", paramLabel = "A", description = "The agent asking: its documents' rules and lore with the"
            + " tenant's shared ones (default: the tenant's one agent, or only the shared documents when it has several).")
    String agent;

    @Option(names = "--all-rules", description = "Every hard rule of the agent, even over the budget.")
    boolean allRules;

    @Option(names = "--json", description = "Print the context as JSON.")
    boolean json;

    @picocli.CommandLine.Mixin
    MemoryIndexOptions memoryIndex;

    @Override
    public Integer call() throws Exception {
        if (!tenant.matches("^[a-z0-9][a-z0-9_-]{0,62}$")) {
            spec.commandLine().getErr().println("engram recall: invalid tenant id: " + tenant);
            return 2;
        }
        PrintWriter out = spec.commandLine().getOut();
        try (Retrieval retrieval = memoryIndex.open()) {
            AssembledContext c = retrieval.context().assemble(
                    new ContextService.Request(tenant, session, user, query, budget, asOf == null ? null : asOf.toInstant(),
                            agent, allRules), Clock.systemUTC().instant());
            if (json) {
                out.println(ResponsesJson.JSON.writerWithDefaultPrettyPrinter()
                        .writeValueAsString(ResponsesJson.context(tenant, c)));
            } else {
                out.printf("context for %s, %s: %d of %d tokens%s%n", tenant, c.agentId() == null
                        ? "shared documents only" : "agent " + c.agentId(), c.tokensUsed(), c.budget(),
                        c.degraded() ? " (degraded: " + String.join("; ", c.degradedReasons()) + ")" : "");
                for (AssembledContext.Included i : c.included()) {
                    out.printf("+ %-11s %-9s %5d  %s%n", i.section().name().toLowerCase(), i.item().type().label(),
                            i.item().tokens(), i.item().text().replace('\n', ' '));
                }
                for (AssembledContext.Excluded e : c.excluded()) {
                    out.printf("- %-11s %-9s %5d  %s%n", e.section().name().toLowerCase(), e.item().type().label(),
                            e.item().tokens(), e.reason());
                }
            }
        }
        out.flush();
        return 0;
    }
}
