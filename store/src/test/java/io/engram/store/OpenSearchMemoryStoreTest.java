package io.engram.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.engram.model.retrieval.MemoryRecord;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.stack.OutageProxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What only the OpenSearch store does: retries by the kind of failure, English analysis, and the migration of an
 * index an earlier version made. What every store does is {@link MemoryStoreContract}'s.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class OpenSearchMemoryStoreTest {

    @Test
    void englishWordsFindTheirOtherForms(EmbeddedOpenSearch openSearch) {
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearch.httpUrl(), "engram-memories-english-test",
                RetryPolicy.DEFAULT)) {
            store.ensureIndex("test-vectors", 3);
            store.upsert(List.of(Records.memory("english", "english-1", "She painted the sunsets", new float[] {1, 0, 0}),
                    Records.memory("english", "english-2", "lunch is at noon", new float[] {0, 1, 0})));
            store.refresh();
            assertThat(store.bm25("english", "paints a sunset", 10, Set.of())).extracting(h -> h.record().id())
                    .containsExactly("english-1");
        }
    }

    @Test
    void withoutEntitiesARecordsDocumentHoldsNoMentionsAndTheGraphIsEmpty(EmbeddedOpenSearch openSearch) {
        String index = "engram-memories-no-entities-test";
        MemoryRecord memory = Records.memory("t", RecordIds.memory("t", "m"), "Anna moved to Oslo.", new float[] {1, 0, 0});
        try (MemoryStore off = OpenSearchMemoryStore.at(OpenSearchConnection.of(openSearch.httpUrl()), index,
                RetryPolicy.DEFAULT, false).open(); MemoryStore on = OpenSearchMemoryStore.at(openSearch.httpUrl(), index,
                RetryPolicy.DEFAULT).open()) {
            off.ensureIndex("test-vectors", 3);
            off.upsert(List.of(memory));
            off.refresh();
            assertThat(off.entities("t", Map.of(), 10, 3, 1)).isEmpty();
            on.upsert(List.of(memory));
            on.refresh();
            assertThat(on.entities("t", Map.of(), 10, 3, 1)).extracting(MemoryReader.Entity::name).containsExactly("anna", "oslo");
        }
    }

    @Test
    void anIndexIsKnownByItsClustersUuidAndItsOwn(EmbeddedOpenSearch openSearch) {
        try (OpenSearchMemoryStore made = new OpenSearchMemoryStore(openSearch.httpUrl(), "engram-memories-uuid-test",
                RetryPolicy.DEFAULT);
             OpenSearchMemoryStore absent = new OpenSearchMemoryStore(openSearch.httpUrl(), "engram-memories-uuid-absent",
                     RetryPolicy.DEFAULT)) {
            made.ensureIndex("test-vectors", 3);
            List<String> uuids = made.clusterAndIndexUuid();
            assertThat(uuids).hasSize(2).allSatisfy(uuid -> assertThat(uuid).isNotBlank());
            assertThat(absent.clusterAndIndexUuid()).containsExactly(uuids.get(0), "");
        }
    }

    @Test
    void anUnreachableNodeIsRetriedThenFailsWithACount() {
        try (OpenSearchMemoryStore nowhere = new OpenSearchMemoryStore("http://127.0.0.1:1", "engram-memories-x",
                new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(20)))) {
            assertThatThrownBy(() -> nowhere.upsert(List.of(Records.memory("t", "t-1", "x", new float[] {1, 0, 0}))))
                    .isInstanceOf(StoreWriteException.class)
                    .hasMessageContaining("1 documents not written after 3 attempts");
        }
    }

    @Test
    void aRequestRefusedForGoodIsNotRetried(EmbeddedOpenSearch openSearch) {
        RetryPolicy patient = new RetryPolicy(5, Duration.ofMillis(10), Duration.ofMillis(20));
        try (OutageProxy proxy = new OutageProxy(openSearch.httpUrl(), 0, 0).answerEveryBulkWith(401);
             OpenSearchMemoryStore refused = new OpenSearchMemoryStore(proxy.url(), "engram-memories-store-test", patient)) {
            assertThatThrownBy(() -> refused.upsert(List.of(Records.memory("t", "t-1", "x", new float[] {1, 0, 0}))))
                    .isInstanceOf(StoreWriteException.class).hasMessageContaining("HTTP 401");
            assertThat(proxy.bulks()).as("a refusal is not a transient failure").isEqualTo(1);
        }
    }

    @Test
    void aRequestAnOverloadedNodeRefusesIsRetriedToTheBound(EmbeddedOpenSearch openSearch) {
        RetryPolicy patient = new RetryPolicy(5, Duration.ofMillis(10), Duration.ofMillis(20));
        try (OutageProxy proxy = new OutageProxy(openSearch.httpUrl(), 0, 0).answerEveryBulkWith(503);
             OpenSearchMemoryStore overloaded = new OpenSearchMemoryStore(proxy.url(), "engram-memories-store-test", patient)) {
            assertThatThrownBy(() -> overloaded.upsert(List.of(Records.memory("t", "t-1", "x", new float[] {1, 0, 0}))))
                    .isInstanceOf(StoreWriteException.class)
                    .hasMessageContaining("1 documents not written after 5 attempts");
            assertThat(proxy.bulks()).isEqualTo(5);
        }
    }

    @Test
    void anIndexFromBeforeEnglishTextGetsTheFieldAndItsRecordsReindexed(EmbeddedOpenSearch openSearch) throws Exception {
        // outside the template's pattern, so the index has the old mapping: text without text.en
        String legacy = openSearch.httpUrl() + "/legacy-memories";
        send("PUT", legacy, "{\"mappings\":{\"properties\":{\"text\":{\"type\":\"text\"}}}}");
        send("PUT", legacy + "/_doc/1?refresh=true", "{\"text\":\"She painted the sunsets\"}");

        try (OpenSearchMemoryStore old = new OpenSearchMemoryStore(openSearch.httpUrl(), "legacy-memories",
                RetryPolicy.DEFAULT)) {
            old.ensureIndex(MemoryIndexTemplate.UNRECORDED_MODEL, 3);
            assertThat(old.embeddingModel()).isEqualTo(MemoryIndexTemplate.UNRECORDED_MODEL);
        }

        assertThat(send("GET", legacy + "/_mapping", null)).contains("\"en\":{\"type\":\"text\",\"analyzer\":\"english\"}")
                .as("a memory's facts added").contains("\"superseded_at\":{\"type\":\"date\",\"format\":\"epoch_millis\"}")
                .contains("\"key\":{\"type\":\"keyword\"}");
        // the store started the reindex in the background: the tasks API blocks until it is done
        send("GET", openSearch.httpUrl() + "/_tasks?actions=*byquery&wait_for_completion=true&timeout=60s", null);
        send("POST", legacy + "/_refresh", null);
        assertThat(send("POST", legacy + "/_search", "{\"query\":{\"match\":{\"text.en\":\"paint sunset\"}}}"))
                .contains("\"total\":{\"value\":1");
    }

    private static String send(String method, String url, String json) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void aRecordWrittenInEachEncodingIsFoundByItsOwnVectorFirst(EmbeddedOpenSearch openSearch) {
        float[][] vectors = new float[40][];
        Random random = new Random(7);
        for (int i = 0; i < vectors.length; i++) {
            vectors[i] = new float[16];
            for (int d = 0; d < 16; d++) {
                vectors[i][d] = (float) random.nextGaussian();
            }
        }
        for (VectorEncoding encoding : VectorEncoding.values()) {
            try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearch.httpUrl(),
                    "engram-memories-encoding-" + encoding.id() + "-test", RetryPolicy.DEFAULT)) {
                store.ensureIndex("test-vectors", 16, encoding);
                List<MemoryRecord> records = new ArrayList<>();
                for (int i = 0; i < vectors.length; i++) {
                    records.add(Records.memory("enc", "enc-" + i, "memory " + i, vectors[i]));
                }
                store.upsert(records);
                store.refresh();
                for (int i = 0; i < vectors.length; i++) {
                    assertThat(store.knn("enc", vectors[i], 3, Set.of()).get(0).record().id())
                            .as("%s record %d", encoding.id(), i).isEqualTo("enc-" + i);
                }
            }
        }
    }

    @Test
    void anIndexKeepsTheEncodingItWasCreatedWith(EmbeddedOpenSearch openSearch) {
        String index = "engram-memories-encoding-kept-test";
        try (OpenSearchMemoryStore quantized = new OpenSearchMemoryStore(openSearch.httpUrl(), index, RetryPolicy.DEFAULT)) {
            quantized.ensureIndex("test-vectors", 3, VectorEncoding.SQ);
            quantized.ensureIndex("test-vectors", 3, VectorEncoding.SQ);
            assertThatThrownBy(() -> quantized.ensureIndex("test-vectors", 3, VectorEncoding.FLOAT))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("index " + index + " holds its vectors in encoding sq, not float")
                    .hasMessageContaining("opensearch.vector-encoding=sq");
        }
    }
}
