package io.engram.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedServicesExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The store contract on a real OpenSearch node. */
@ExtendWith(EmbeddedServicesExtension.class)
class OpenSearchMemoryStoreContractTest extends MemoryStoreContract {

    private final String url;

    OpenSearchMemoryStoreContractTest(EmbeddedOpenSearch openSearch) {
        this.url = openSearch.httpUrl();
    }

    @Override
    protected MemoryStore open(String name) {
        return new OpenSearchMemoryStore(url, name, RetryPolicy.DEFAULT);
    }

    @Override
    protected MemoryStore openPagingSessions(String name, int sessionsPerPage) {
        OpenSearchMemoryStore store = new OpenSearchMemoryStore(url, name, RetryPolicy.DEFAULT);
        store.sessionsPerPage = sessionsPerPage;
        return store;
    }

    /** A page of a user's sessions is one aggregation's buckets and one terms query's values: within both limits. */
    @Test
    void aPageOfSessionsIsWithinTheNodesLimitsWhichOneAggregationOfEverySessionWasNot() throws Exception {
        try (OpenSearchHttp http = new OpenSearchHttp(OpenSearchConnection.of(url))) {
            JsonNode defaults = VectorJson.MAPPER.readTree(http.send("GET",
                    "/_cluster/settings?include_defaults=true&flat_settings=true", null, 200)).path("defaults");
            int maxBuckets = defaults.path("search.max_buckets").asInt();
            assertThat(maxBuckets).as("the aggregation of 65,536 sessions it replaced was over it").isEqualTo(65_535);
            JsonNode index = VectorJson.MAPPER.readTree(http.send("GET",
                    "/engram-memories-contract/_settings?include_defaults=true&flat_settings=true", null, 200));
            int maxTerms = index.path("engram-memories-contract").path("defaults").path("index.max_terms_count").asInt();
            assertThat(maxTerms).isEqualTo(65_536);
            assertThat(OpenSearchMemoryStore.SESSIONS_PER_PAGE).isLessThanOrEqualTo(Math.min(maxBuckets, maxTerms));
        }
    }
}
