package io.engram.launcher;

import io.engram.model.retrieval.RecordType;
import io.engram.service.ApiKeys;
import io.engram.store.ExportLines;
import io.engram.store.MemoryReader;
import io.engram.store.MemoryStore;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "export", mixinStandardHelpOptions = true,
        description = {"Write a tenant's records as JSON lines, oldest first, straight from OpenSearch.",
                "Turns and memories are the turn.v1 and memory.v1 payloads that wrote them, what the pipeline derives"
                        + " a derived.v1 line; a cursor.v1 line follows each page (docs/operations.md, \"Export\")."})
final class ExportCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--tenant", required = true, paramLabel = "T", description = "The tenant whose records to export.")
    String tenant;

    @Option(names = "--user", paramLabel = "U", description = "Only this user's records.")
    String user;

    @Option(names = "--session", paramLabel = "S", description = "Only this session's records.")
    String session;

    @Option(names = "--agent", paramLabel = "A", description = "Only this agent's records.")
    String agent;

    @Option(names = "--out", paramLabel = "FILE", description = "Write to this file (default: standard output).")
    Path out;

    @picocli.CommandLine.Mixin
    MemoryIndexOptions memoryIndex;

    @Override
    public Integer call() throws Exception {
        if (!ApiKeys.isTenantId(tenant)) {
            spec.commandLine().getErr().println("engram export: --tenant: invalid tenant id: " + tenant);
            return 2;
        }
        Map<String, Object> terms = new LinkedHashMap<>();
        putIfGiven(terms, "user_id", user);
        putIfGiven(terms, "session_id", session);
        putIfGiven(terms, "agent_id", agent);
        try (MemoryStore store = memoryIndex.openStore()) {
            ExportLines.Pages pages = cursor -> store.list(tenant, terms, Set.<RecordType>of(),
                    MemoryReader.Order.OLDEST_FIRST, ExportLines.PAGE_SIZE, cursor);
            long records;
            if (out == null) {
                records = ExportLines.write(pages.after(null), pages, spec.commandLine().getOut());
            } else {
                try (Writer file = Files.newBufferedWriter(out)) {
                    records = ExportLines.write(pages.after(null), pages, file);
                }
            }
            spec.commandLine().getErr().println("engram export: " + records + " records of " + tenant
                    + (out == null ? "" : " to " + out));
            return 0;
        }
    }

    private static void putIfGiven(Map<String, Object> terms, String field, String value) {
        if (value != null) {
            terms.put(field, value);
        }
    }
}
