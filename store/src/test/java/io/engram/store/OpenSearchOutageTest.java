package io.engram.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.retrieval.MemoryRecord;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.stack.OutageProxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The real OpenSearch node behind a proxy that rejects the first bulk requests (429, then 503), as an
 * overloaded or restarting cluster does: the store backs off, retries and lands every record.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class OpenSearchOutageTest {

    @Test
    void rejectedBulkRequestsAreRetriedUntilTheyLand(EmbeddedOpenSearch openSearch) {
        try (OutageProxy proxy = new OutageProxy(openSearch.httpUrl(), 0, 2);
             OpenSearchMemoryStore store = new OpenSearchMemoryStore(proxy.url(), "engram-memories-outage-test",
                     new RetryPolicy(6, Duration.ofMillis(20), Duration.ofMillis(200)))) {
            store.ensureIndex("test-vectors", 3);
            List<MemoryRecord> records = List.of(
                    Records.memory("outage", "outage-1", "first", new float[] {1, 0, 0}),
                    Records.memory("outage", "outage-2", "second", new float[] {0, 1, 0}));
            store.upsert(records);
            store.refresh();
            assertThat(proxy.refused()).isEqualTo(2);
            assertThat(proxy.forwardedBulks()).isEqualTo(1);
            assertThat(store.find("outage", Map.of(), Set.of(), 10, null, true)).containsExactlyInAnyOrderElementsOf(records);
        }
    }
}
