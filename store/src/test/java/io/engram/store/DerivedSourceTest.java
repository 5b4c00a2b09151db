package io.engram.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.store.MemoryReader.ScoredRecord;
import io.engram.store.MemoryWriter.Superseded;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Vectors kept out of the stored {@code _source} (k-NN derived source): every way the store rewrites or deletes
 * records leaves each surviving record with its own vector, found by a k-NN query with it and given back by a
 * source read that asks for it, while the store's reads fetch none; and an index of the layout before migrates.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class DerivedSourceTest {

    private static final int DIMENSION = 8;
    private static final String MODEL = "test-vectors";
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private final Random random = new Random(63);

    @Test
    void everyUpdateAndDeleteLeavesEachSurvivingRecordItsOwnVector(EmbeddedOpenSearch openSearch) throws Exception {
        String index = "engram-memories-derived-updates-test";
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearch.httpUrl(), index, RetryPolicy.DEFAULT)) {
            store.ensureIndex(MODEL, DIMENSION);
            assertThat(settings(openSearch, index).path(OpenSearchIndexSetup.DERIVED_SOURCE).asText()).isEqualTo("true");
            Map<String, MemoryRecord> survivors = new LinkedHashMap<>();
            MemoryRecord superseded = memory("t", "superseded", "the old address");
            MemoryRecord reinstated = memory("t", "reinstated", "an address marked and unmarked");
            MemoryRecord rewritten = memory("t", "rewritten", "the first wording");
            MemoryRecord forgotten = memory("t", "forgotten", "a memory to forget");
            List<MemoryRecord> keptSession = List.of(turn("t", "s-kept", "u-kept", 1), turn("t", "s-kept", "u-kept", 2));
            List<MemoryRecord> goneSession = List.of(turn("t", "s-gone", "u-kept", 1), turn("t", "s-gone", "u-kept", 2));
            List<MemoryRecord> goneUser = List.of(turn("t", "s-user-gone", "u-gone", 1));
            MemoryRecord oldTurn = MemoryRecord.of("t/s-expiring/1", "t", RecordType.TURN, "a turn past retention",
                    Records.T0.minus(Duration.ofDays(30))).embedding(vector()).session("s-expiring").user("u-kept")
                    .role("user").position(1).tokens(4).build();
            MemoryRecord chunkV1 = chunk("t", 1, 0);
            MemoryRecord chunkV2 = chunk("t", 2, 0);
            MemoryRecord otherTenant = memory("other", "other-tenant", "another tenant's memory");
            List<MemoryRecord> all = new ArrayList<>(List.of(superseded, reinstated, rewritten, forgotten, oldTurn,
                    chunkV1, otherTenant));
            all.addAll(keptSession);
            all.addAll(goneSession);
            all.addAll(goneUser);
            store.upsert(all);
            // marked before any refresh: the update reads the record back through the realtime get
            Instant at = Records.T0.plusSeconds(60);
            store.supersede("t", List.of(new Superseded(superseded.id(), rewritten.id(), at),
                    new Superseded(reinstated.id(), rewritten.id(), at)));
            store.refresh();
            store.supersede("t", List.of(new Superseded(reinstated.id(), null, null)));
            MemoryRecord rewrittenAgain = MemoryRecord.of(rewritten.id(), "t", RecordType.MEMORY, "the second wording",
                    Records.T0).embedding(vector()).tokens(3).build();
            store.upsert(List.of(rewrittenAgain, chunkV2));
            assertThat(store.forget("t", ForgetScope.MEMORY, forgotten.id())).isEqualTo(1);
            assertThat(store.forget("t", ForgetScope.SESSION, "s-gone")).isEqualTo(2);
            assertThat(store.forget("t", ForgetScope.USER, "u-gone")).isEqualTo(1);
            assertThat(store.deleteOlderThan("t", RecordType.TURN, Records.T0)).isEqualTo(1);
            assertThat(store.deleteOlderDocumentVersions("t", "agent-1", "guide.md", 2)).isEqualTo(1);
            // merging rewrites every segment, with the sources rebuilt from the vectors
            send(openSearch, "POST", "/" + index + "/_forcemerge?max_num_segments=1", null);
            store.refresh();

            for (MemoryRecord r : List.of(superseded, reinstated, rewrittenAgain, chunkV2, otherTenant)) {
                survivors.put(r.id(), r);
            }
            keptSession.forEach(r -> survivors.put(r.id(), r));
            survivors.values().forEach(r -> assertFoundByItsOwnVector(store, r));
            survivors.values().forEach(r -> assertSourceHoldsItsVector(openSearch, index, r));
            for (MemoryRecord gone : List.of(forgotten, oldTurn, chunkV1, goneSession.get(0), goneSession.get(1),
                    goneUser.get(0))) {
                assertThat(source(openSearch, index, gone).path("found").asBoolean()).as(gone.id()).isFalse();
            }
            JsonNode superseder = source(openSearch, index, superseded).path("_source");
            assertThat(superseder.path("superseded_by").asText()).isEqualTo(rewritten.id());
            assertThat(superseder.path("superseded_at").asLong()).isEqualTo(at.toEpochMilli());
            assertThat(source(openSearch, index, reinstated).path("_source").has("superseded_by")).isFalse();
            assertThat(source(openSearch, index, rewrittenAgain).at("/_source/text").asText()).isEqualTo("the second wording");

            // the store's reads fetch no vector; BM25, which scores by the vectors, asks for them and gets each one's
            assertThat(store.get("t", List.of(superseded.id(), reinstated.id(), chunkV2.id())))
                    .hasSize(3).allSatisfy(r -> assertThat(r.embedding()).isNull());
            assertThat(store.turnsAround("t", Map.of("s-kept", Set.of(1)), 1)).hasSize(2)
                    .allSatisfy(r -> assertThat(r.embedding()).isNull());
            List<ScoredRecord> lexical = store.bm25("t", "second wording", 1, Set.of());
            assertThat(lexical).extracting(h -> h.record().id()).containsExactly(rewrittenAgain.id());
            assertThat(lexical.get(0).record().embedding()).containsExactly(rewrittenAgain.embedding(), within(1e-6f));
        }
    }

    @Test
    void theStoredSourceIsSmallerWithoutTheVectors(EmbeddedOpenSearch openSearch) throws Exception {
        List<MemoryRecord> records = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            float[] v = new float[384];
            for (int d = 0; d < v.length; d++) {
                v[d] = (float) random.nextGaussian();
            }
            records.add(Records.memory("size", "size-" + i, "memory number " + i + " of the size comparison", v));
        }
        long withVectors = storeBytes(openSearch, oldLayoutIndex(openSearch, "size-old-layout-test", 384), records);
        long derived = storeBytes(openSearch, "engram-memories-size-derived-test", records);
        assertThat(derived).isPositive().isLessThan(withVectors);
    }

    @Test
    void anIndexOfTheLayoutBeforeMigratesAndItsNameKeepsWorking(EmbeddedOpenSearch openSearch) throws Exception {
        String name = oldLayoutIndex(openSearch, "old-layout-migrate-test-v1", DIMENSION);
        List<MemoryRecord> records = List.of(memory("t", "a", "first memory"), memory("t", "b", "second memory"),
                turn("t", "s", "u", 1), turn("t", "s", "u", 2), chunk("t", 1, 0), memory("u", "c", "another tenant's"));
        Map<String, JsonNode> before = new LinkedHashMap<>();
        try (OpenSearchMemoryStore old = new OpenSearchMemoryStore(openSearch.httpUrl(), name, RetryPolicy.DEFAULT)) {
            old.ensureIndex(MODEL, DIMENSION);
            old.upsert(records);
            old.supersede("t", List.of(new Superseded(records.get(0).id(), records.get(1).id(), Records.T0)));
            // what OpenSearchIndexSetup.addEnglishText runs on an index of the layout before that lacks text.en
            send(openSearch, "POST", "/" + name + "/_update_by_query?refresh=true&conflicts=proceed", null);
            old.refresh();
            records.forEach(r -> assertFoundByItsOwnVector(old, r)); // the layout before keeps working as it is
            records.forEach(r -> before.put(r.id(), source(openSearch, name, r).path("_source")));
        }
        MemoryIndexMigration.Result result;
        try (MemoryIndexMigration migration = new MemoryIndexMigration(OpenSearchConnection.of(openSearch.httpUrl()), name)) {
            result = migration.migrate(null, true);
        }
        assertThat(result.from()).isEqualTo(name);
        assertThat(result.to()).isEqualTo("old-layout-migrate-test-v2");
        assertThat(result.records()).isEqualTo(records.size());
        assertThat(send(openSearch, "GET", "/" + name + "/_alias", null).path(result.to()).path("aliases").has(name)).isTrue();
        assertThat(settings(openSearch, name).path(OpenSearchIndexSetup.DERIVED_SOURCE).asText()).isEqualTo("true");
        for (MemoryRecord r : records) {
            JsonNode after = source(openSearch, name, r).path("_source");
            assertVectorEquals(after, r.embedding());
            assertThat(withoutVector(after)).isEqualTo(withoutVector(before.get(r.id())));
        }
        try (OpenSearchMemoryStore migrated = new OpenSearchMemoryStore(openSearch.httpUrl(), name, RetryPolicy.DEFAULT)) {
            migrated.ensureIndex(MODEL, DIMENSION); // through the alias: its mapping is the new index's
            assertThat(migrated.embeddingModel()).isEqualTo(MODEL);
            records.forEach(r -> assertFoundByItsOwnVector(migrated, r));
            MemoryRecord added = memory("t", "added", "written after the migration");
            migrated.upsert(List.of(added));
            migrated.supersede("t", List.of(new Superseded(added.id(), records.get(1).id(), Records.T0)));
            migrated.refresh();
            assertFoundByItsOwnVector(migrated, added);
            assertThat(migrated.get("t", added.id())).get().satisfies(r -> {
                assertThat(r.supersededBy()).isEqualTo(records.get(1).id());
                assertThat(r.embedding()).isNull();
            });
        }
        try (MemoryIndexMigration again = new MemoryIndexMigration(OpenSearchConnection.of(openSearch.httpUrl()), name)) {
            assertThatThrownBy(() -> again.migrate(null, false)).hasMessageContaining("nothing to migrate");
        }
    }

    @Test
    void anAliasMovesToTheMigratedIndexAndTheOldOneIsKeptReadOnly(EmbeddedOpenSearch openSearch) throws Exception {
        String first = oldLayoutIndex(openSearch, "old-layout-alias-test-1", DIMENSION);
        String alias = "old-layout-alias-test";
        send(openSearch, "POST", "/_aliases", "{\"actions\": [{\"add\": {\"index\": \"" + first + "\", \"alias\": \""
                + alias + "\"}}]}");
        MemoryRecord record = memory("t", "aliased", "a memory written through an alias");
        try (OpenSearchMemoryStore old = new OpenSearchMemoryStore(openSearch.httpUrl(), alias, RetryPolicy.DEFAULT)) {
            old.ensureIndex(MODEL, DIMENSION);
            old.upsert(List.of(record));
        }
        try (MemoryIndexMigration migration = new MemoryIndexMigration(OpenSearchConnection.of(openSearch.httpUrl()), alias)) {
            assertThatThrownBy(() -> migration.migrate("old-layout-alias-test-2", true)).hasMessageContaining("an alias of " + first);
            MemoryIndexMigration.Result result = migration.migrate("old-layout-alias-test-2", false);
            assertThat(result.nextStep()).contains("the alias " + alias + " names old-layout-alias-test-2");
        }
        assertThat(send(openSearch, "GET", "/" + alias + "/_alias", null).fieldNames()).toIterable()
                .containsExactly("old-layout-alias-test-2");
        assertThat(settings(openSearch, first).path("index.blocks.write").asText()).isEqualTo("true");
        try (OpenSearchMemoryStore migrated = new OpenSearchMemoryStore(openSearch.httpUrl(), alias, RetryPolicy.DEFAULT)) {
            assertFoundByItsOwnVector(migrated, record);
        }
    }

    @Test
    void theNewIndexIsNamedByTheNextVersion() {
        assertThat(MemoryIndexMigration.nextName("engram-memories-v1")).isEqualTo("engram-memories-v2");
        assertThat(MemoryIndexMigration.nextName("engram-memories-v9")).isEqualTo("engram-memories-v10");
        assertThat(MemoryIndexMigration.nextName("memories")).isEqualTo("memories-v2");
    }

    /** k-NN with the record's own vector finds it first, at cosine ≈ 1, and gives no vector back. */
    private static void assertFoundByItsOwnVector(MemoryReader store, MemoryRecord r) {
        List<ScoredRecord> hits = store.knn(r.tenantId(), r.embedding(), 1, Set.of());
        assertThat(hits).as(r.id()).extracting(h -> h.record().id()).containsExactly(r.id());
        assertThat(hits.get(0).score()).as(r.id()).isCloseTo(1.0, within(1e-4));
        assertThat(hits.get(0).record().embedding()).isNull();
    }

    private static void assertSourceHoldsItsVector(EmbeddedOpenSearch openSearch, String index, MemoryRecord r) {
        assertVectorEquals(source(openSearch, index, r).path("_source"), r.embedding());
    }

    private static void assertVectorEquals(JsonNode source, float[] expected) {
        JsonNode vector = source.path("embedding");
        assertThat(vector.size()).isEqualTo(expected.length);
        for (int d = 0; d < expected.length; d++) {
            assertThat((float) vector.get(d).asDouble()).isCloseTo(expected[d], within(1e-6f));
        }
    }

    private static JsonNode withoutVector(JsonNode source) {
        ObjectNode copy = source.deepCopy();
        copy.remove("embedding");
        return copy;
    }

    /** An index as the template made it before vectors left {@code _source}, named outside the template's pattern. */
    private static String oldLayoutIndex(EmbeddedOpenSearch openSearch, String index, int dimension) throws Exception {
        ObjectNode body = (ObjectNode) MemoryIndexTemplate.body(dimension).get("template");
        ((ObjectNode) body.at("/settings/index")).remove("knn.derived_source.enabled");
        ((ObjectNode) body.get("mappings")).putObject("_meta").put("embedding_model", MODEL);
        send(openSearch, "PUT", "/" + index, body.toString());
        return index;
    }

    /** The index's bytes on disk holding {@code records}, flushed and merged to one segment. */
    private static long storeBytes(EmbeddedOpenSearch openSearch, String index, List<MemoryRecord> records) throws Exception {
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(openSearch.httpUrl(), index, RetryPolicy.DEFAULT)) {
            store.ensureIndex(MODEL, 384);
            store.upsert(records);
            store.refresh();
            assertThat(store.count("size", Set.of())).isEqualTo(records.size());
        }
        send(openSearch, "POST", "/" + index + "/_forcemerge?max_num_segments=1&flush=true", null);
        return send(openSearch, "GET", "/" + index + "/_stats/store", null).at("/_all/primaries/store/size_in_bytes").asLong();
    }

    private MemoryRecord memory(String tenant, String id, String text) {
        return Records.memory(tenant, RecordIds.memory(tenant, id), text, vector());
    }

    private MemoryRecord turn(String tenant, String session, String user, int position) {
        return MemoryRecord.of(tenant + "/" + session + "/" + position, tenant, RecordType.TURN, "turn " + position
                + " of " + session, Records.T0.plusSeconds(position - 1)).embedding(vector(session, position))
                .session(session).user(user).role("user").position(position).tokens(4).build();
    }

    private MemoryRecord chunk(String tenant, long version, int position) {
        return Records.chunk(tenant, tenant + "/guide.md/" + version + "/" + position, RecordType.LORE, 2, "guide.md",
                version, position, "the guide, version " + version, vector());
    }

    private float[] vector() {
        float[] v = new float[DIMENSION];
        for (int d = 0; d < DIMENSION; d++) {
            v[d] = (float) random.nextGaussian();
        }
        return v;
    }

    /** The same vector for the same turn, so a turn built again to name it compares equal. */
    private static float[] vector(String session, int position) {
        Random seeded = new Random(session.hashCode() * 31L + position);
        float[] v = new float[DIMENSION];
        for (int d = 0; d < DIMENSION; d++) {
            v[d] = (float) seeded.nextGaussian();
        }
        return v;
    }

    private static JsonNode settings(EmbeddedOpenSearch openSearch, String index) throws Exception {
        return send(openSearch, "GET", "/" + index + "/_settings?flat_settings=true", null).elements().next().path("settings");
    }

    /** {@code GET _doc} of the record without excludes: its whole source, the vector injected back. */
    private static JsonNode source(EmbeddedOpenSearch openSearch, String index, MemoryRecord r) {
        try {
            return send(openSearch, "GET", "/" + index + "/_doc/" + URLEncoder.encode(r.id(), StandardCharsets.UTF_8)
                    + "?routing=" + URLEncoder.encode(r.tenantId(), StandardCharsets.UTF_8), null);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode send(EmbeddedOpenSearch openSearch, String method, String path, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(openSearch.httpUrl() + path)).timeout(Duration.ofMinutes(2))
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
        HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(method + " " + path + ": " + response.body()).isIn(200, 404);
        return VectorJson.MAPPER.readTree(response.body());
    }
}
