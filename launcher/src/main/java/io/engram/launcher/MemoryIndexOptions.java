package io.engram.launcher;

import io.engram.store.MemoryIndexTemplate;
import picocli.CommandLine.Option;

/** Where the memory index is: shared by the commands that read it. */
final class MemoryIndexOptions {

    @Option(names = "--opensearch", required = true, paramLabel = "URL", description = "OpenSearch, e.g. http://127.0.0.1:9200.")
    String openSearch;

    @Option(names = "--index", paramLabel = "NAME", description = "Memory index (default: ${DEFAULT-VALUE}).")
    String index = MemoryIndexTemplate.INDEX;
}
