package io.engram.jobs.collapse;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.collapse.CanarySet;
import io.engram.model.collapse.StoreShape;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.store.MemoryStore;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Canary ranks depend on the tenant's own records only: another tenant writing to the same shard changes
 * OpenSearch's BM25 order of the tenant's records (shard statistics), not the canaries' ranks.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class CanaryScorerTest {

    private static final String INDEX = "engram-memories-canary-scorer";
    private static final String TENANT = "canary-a";

    private static MemoryRecord summary(String tenant, String id, String text) {
        return MemoryRecord.of(tenant + "/" + id, tenant, RecordType.SUMMARY, text, Instant.EPOCH)
                .provenance(List.of(), 1).tokens(10).build();
    }

    @Test
    void anotherTenantOnTheSameShardDoesNotMoveTheRanks(EmbeddedOpenSearch openSearch) throws Exception {
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearch.httpUrl(), INDEX, RetryPolicy.DEFAULT)) {
            store.ensureIndex(EmbeddingModel.ALL_MINILM_L6_V2.id(), EmbeddingModel.DIMENSION);
            String neighbour = tenantOnTheSameShard(openSearch.httpUrl());
            List<MemoryRecord> own = List.of(
                    summary(TENANT, "s1", "budget review budget review deadline friday office"),
                    summary(TENANT, "s2", "budget migration harbour harbour harbour building move"),
                    summary(TENANT, "s3", "hiring a data engineer for the pipeline"));
            store.upsert(own);
            StoreShape shape = new StoreShape(2);
            own.forEach(r -> shape.upsert(StoreShape.Entry.of(r.id(), r.type(), r.text(), r.generation())));
            CanarySet set = new CanarySet("cs-test", List.of(
                    new CanarySet.Canary("c000", TENANT + "/s1", RecordType.SUMMARY, "budget harbour"),
                    new CanarySet.Canary("c001", TENANT + "/s2", RecordType.SUMMARY, "budget harbour"),
                    new CanarySet.Canary("c002", TENANT + "/s3", RecordType.SUMMARY, "engineer pipeline")));

            store.refresh();
            int[] before = CanaryScorer.ranks(store, TENANT, set, shape, 10);
            List<String> shardOrderBefore = shardOrder(store);
            List<MemoryRecord> noise = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                noise.add(summary(neighbour, "n" + i, "harbour view number " + i));
            }
            store.upsert(noise);
            store.refresh();
            int[] after = CanaryScorer.ranks(store, TENANT, set, shape, 10);

            // "harbour" is rare among the tenant's records: s2 (three of it) before s1 (budget twice)
            assertThat(before).containsExactly(1, 0, 0);
            assertThat(after).containsExactly(before);
            assertThat(shardOrder(store)).as("OpenSearch's own order did move").isNotEqualTo(shardOrderBefore);
        }
    }

    private static List<String> shardOrder(OpenSearchMemoryStore store) {
        store.refresh();
        return store.bm25Candidates(TENANT, List.of("budget harbour"), 10, StoreShape.LEARNING_TYPES).get(0).stream()
                .map(MemoryStore.RefHit::id).toList();
    }

    /** A tenant whose routing lands on the same shard as {@link #TENANT}'s. */
    private static String tenantOnTheSameShard(String url) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String mine = shardOf(http, url, TENANT);
        for (int i = 0; i < 100; i++) {
            if (shardOf(http, url, "canary-b" + i).equals(mine)) {
                return "canary-b" + i;
            }
        }
        throw new AssertionError("no tenant routed to shard " + mine);
    }

    private static String shardOf(HttpClient http, String url, String routing) throws Exception {
        String body = http.send(HttpRequest.newBuilder(URI.create(url + "/" + INDEX + "/_search_shards?routing=" + routing))
                .build(), HttpResponse.BodyHandlers.ofString()).body();
        return body.replaceAll("(?s).*\"shard\":(\\d+).*", "$1");
    }
}
