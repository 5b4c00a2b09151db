package io.engram.launcher;

import io.engram.store.MemoryIndexMigration;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code ./engram index}: administer the memory index. */
@Command(name = "index", mixinStandardHelpOptions = true,
        description = "Administer the memory index (docs/operations.md, \"Moving an index to the current layout\").",
        subcommands = IndexCommand.Migrate.class)
final class IndexCommand {

    /** {@code ./engram index migrate}: an index of vectors in {@code _source} copied to the current layout. */
    @Command(name = "migrate", mixinStandardHelpOptions = true,
            description = {"Copy an index that stores each vector in _source too into a new index of the current layout.",
                    "Stop the pipeline first: the old index is made read-only, its records are reindexed, the counts"
                            + " compared, and then the name moves (an alias moves; an index stays, read-only, unless"
                            + " --replace deletes it and makes its name an alias of the new one)."})
    static final class Migrate implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Mixin
        MemoryIndexOptions memoryIndex;

        @Option(names = "--to", paramLabel = "NAME",
                description = "The new index (default: the old one's name with its -vN suffix raised, or -v2 added).")
        String to;

        @Option(names = "--replace", description = "Delete the old index once copied and make its name an alias of the"
                + " new one, so opensearch.index stays as it is.")
        boolean replace;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            MemoryIndexMigration.Result result;
            try (MemoryIndexMigration migration = memoryIndex.migration()) {
                result = migration.migrate(to, replace);
            } catch (IllegalStateException | IllegalArgumentException e) {
                throw new Refusal(e.getMessage());
            }
            out.printf("copied %d records from %s to %s%n%s%n", result.records(), result.from(), result.to(),
                    result.nextStep());
            out.flush();
            return 0;
        }
    }
}
