package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.store.MemoryIndexTemplate;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code ./engram index migrate}: an index of the layout before, copied to the current one under the same name. */
@ExtendWith(EmbeddedServicesExtension.class)
class IndexCommandTest {

    private static final String OLD = "index-command-old-layout-v1";

    @Test
    void migrateCopiesTheRecordsAndTheNameThenNamesTheNewIndex(EmbeddedOpenSearch openSearch) throws Exception {
        ObjectNode body = (ObjectNode) MemoryIndexTemplate.body(3).get("template");
        ((ObjectNode) body.at("/settings/index")).remove("knn.derived_source.enabled");
        ((ObjectNode) body.get("mappings")).putObject("_meta").put("embedding_model", "test-vectors");
        HttpResponse<String> created = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(openSearch.httpUrl() + "/" + OLD)).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).isEqualTo(200);
        MemoryRecord record = MemoryRecord.of("acme/m-1", "acme", RecordType.MEMORY, "the office moved to Oslo",
                Instant.parse("2026-11-01T10:00:00Z")).embedding(new float[] {0.2f, 0.3f, 0.9f}).tokens(5).build();
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearch.httpUrl(), OLD, RetryPolicy.DEFAULT)) {
            store.ensureIndex("test-vectors", 3);
            store.upsert(List.of(record));
            store.refresh();
        }

        CliRun run = CliRun.of("index", "migrate", "--opensearch", openSearch.httpUrl(), "--index", OLD, "--replace");

        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).contains("copied 1 records from " + OLD + " to index-command-old-layout-v2")
                .contains(OLD + " is an alias of index-command-old-layout-v2");
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearch.httpUrl(), OLD, RetryPolicy.DEFAULT)) {
            assertThat(store.knn("acme", record.embedding(), 1, Set.of())).extracting(h -> h.record().id())
                    .containsExactly(record.id());
            assertThat(store.find("acme", java.util.Map.of(), Set.of(), 10, null, true)).containsExactly(record);
        }
        CliRun again = CliRun.of("index", "migrate", "--opensearch", openSearch.httpUrl(), "--index", OLD);
        assertThat(again.exit()).isEqualTo(2);
        assertThat(again.err()).contains("already keeps vectors out of _source");
    }
}
