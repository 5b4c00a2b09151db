package io.engram.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.RecordType;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Every request body a tenant's reads and deletes send carries that tenant's filter, and only the asked terms. */
class TenantQueriesTest {

    private final TenantQueries acme = new TenantQueries("acme");

    private static JsonNode filter(JsonNode body) {
        return body.at("/query/bool/filter");
    }

    private static JsonNode tenantTerm() {
        return VectorJson.MAPPER.createObjectNode().set("term", VectorJson.MAPPER.createObjectNode().put("tenant_id", "acme"));
    }

    @Test
    void everyBodyStartsWithTheTenantFilter() {
        List<JsonNode> bodies = List.of(acme.bm25("q", 5, Set.of()), acme.knn(new float[] {1, 0}, 5, Set.of()),
                acme.find(Map.of(), Set.of(), 5, null, true, false), acme.ids(List.of("x")), acme.count(Set.of()),
                acme.stamp(Map.of(), Set.of()), acme.documents(), acme.page(Map.of(), Set.of(), MemoryReader.Order.NEWEST_FIRST, 5, null),
                acme.turnsAround(Map.of("s", Set.of(1)), 1), acme.sessionsOf("ann", 10, "s1"), acme.sessions(List.of("s1")),
                acme.olderDocumentVersions("coder", "AGENTS.md", 3), acme.forget(ForgetScope.USER, "ann", null, null),
                acme.forget(ForgetScope.TENANT, "acme", null, null));
        assertThat(bodies).allSatisfy(body -> assertThat(filter(body).get(0)).isEqualTo(tenantTerm()));
    }

    @Test
    void theKnnQueryFiltersByTenantAndTypeInsideItself() {
        JsonNode knn = acme.knn(new float[] {0.5f, 1}, 7, Set.of(RecordType.MEMORY)).at("/query/bool/must/knn/embedding");
        assertThat(knn.get("k").asInt()).isEqualTo(7);
        assertThat(knn.get("vector")).hasSize(2);
        assertThat(knn.at("/filter/bool/filter/0")).isEqualTo(tenantTerm());
        assertThat(knn.at("/filter/bool/filter/1/terms/type/0").asText()).isEqualTo("memory");
    }

    @Test
    void termsMatchAValueOrAnyOfACollection() {
        JsonNode filter = filter(acme.find(Map.of("tier", List.of(1, 2)), Set.of(), 5, "position", false, false));
        assertThat(filter.get(1).at("/terms/tier")).hasSize(2);
        JsonNode one = filter(acme.find(Map.of("session_id", "s1"), Set.of(), 5, null, true, false));
        assertThat(one.get(1).at("/term/session_id").asText()).isEqualTo("s1");
    }

    @Test
    void aForgetOfATurnAlsoCoversTheSummariesOfItsSessionThatNameIt() {
        JsonNode should = acme.forget(ForgetScope.MEMORY, "acme/s1/t1", "s1", "t1").at("/query/bool/should");
        assertThat(should).hasSize(3);
        assertThat(should.get(2).at("/bool/filter/0/term/session_id").asText()).isEqualTo("s1");
        assertThat(should.get(2).at("/bool/filter/1/term/source_refs").asText()).isEqualTo("t1");
        JsonNode memory = acme.forget(ForgetScope.MEMORY, "acme/m1", null, null).at("/query/bool/should");
        assertThat(memory).as("also what names it by the gateway's own id").hasSize(3);
        assertThat(memory.get(2).at("/term/source_refs").asText()).isEqualTo("m1");
    }

    @Test
    void aForgetOfTheTenantIsItsFilterAlone() {
        assertThat(acme.forget(ForgetScope.TENANT, "acme", null, null).toString())
                .isEqualTo("{\"query\":{\"bool\":{\"filter\":[{\"term\":{\"tenant_id\":\"acme\"}}]}}}");
    }

    @Test
    void noPositionsNoSearchAndNoTenantNoQuery() {
        assertThat(acme.turnsAround(Map.of(), 1)).isNull();
        assertThatThrownBy(() -> new TenantQueries("")).isInstanceOf(IllegalArgumentException.class);
    }
}
