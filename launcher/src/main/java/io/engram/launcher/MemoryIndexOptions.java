package io.engram.launcher;

import io.engram.jobs.PipelineConfig;
import io.engram.retrieval.Retrieval;
import io.engram.store.MemoryIndexMigration;
import io.engram.store.MemoryIndexTemplate;
import io.engram.store.MemoryStore;
import io.engram.store.OpenSearchConnection;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/** Where the memory index is: shared by the commands that read it. */
final class MemoryIndexOptions {

    @ArgGroup(exclusive = true, multiplicity = "1")
    Cluster cluster;

    @Option(names = "--index", paramLabel = "NAME", description = "Memory index (default: the settings file's, else "
            + MemoryIndexTemplate.INDEX + ").")
    String index;

    /** One of the two ways to name the cluster. */
    static final class Cluster {

        @Option(names = "--opensearch", paramLabel = "URL", description = "OpenSearch without security, e.g. http://127.0.0.1:9200.")
        String url;

        @Option(names = "--config", converter = ExistingPath.class, paramLabel = "FILE",
                description = "A settings file instead: its opensearch.* keys (a secured cluster, docs/operations.md \"Security\") and opensearch.index.")
        Path settings;
    }

    /** The read side over the index these options name. */
    Retrieval open() throws IOException {
        Target target = target();
        return Retrieval.open(target.connection(), target.index());
    }

    /** The store alone, for a command that reads records and embeds no query (no embedding model is opened). */
    MemoryStore openStore() throws IOException {
        Target target = target();
        return OpenSearchMemoryStore.at(target.connection(), target.index(), RetryPolicy.DEFAULT).open();
    }

    /** The migration of the index these options name to the current layout. */
    MemoryIndexMigration migration() throws IOException {
        Target target = target();
        return new MemoryIndexMigration(target.connection(), target.index());
    }

    /** The cluster and the index these options name. */
    private record Target(OpenSearchConnection connection, String index) {
    }

    private Target target() throws IOException {
        if (cluster.settings != null) {
            PipelineConfig settings = PipelineConfig.fromProperties(RunCommand.load(cluster.settings));
            return new Target(settings.openSearch(), index != null ? index : settings.index());
        }
        return new Target(OpenSearchConnection.of(cluster.url), index != null ? index : MemoryIndexTemplate.INDEX);
    }
}
