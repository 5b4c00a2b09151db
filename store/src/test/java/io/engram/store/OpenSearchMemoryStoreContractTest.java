package io.engram.store;

import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedServicesExtension;
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
}
