package io.engram.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.retrieval.AgentScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.MemoryReader.Stamp;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RuleCacheTest {

    private static RuleCache.Rules rules(String tenant, int n) {
        return new RuleCache.Rules(IntStream.range(0, n).mapToObj(i -> MemoryRecord.of(tenant + "-" + i, tenant,
                RecordType.INVARIANT, "rule " + i, Instant.EPOCH).tier(1).tokens(3).build()).toList(), List.of());
    }

    private static Stamp stamp(long version) {
        return new Stamp(10, version, 10, 45, 30, List.of("coder"));
    }

    @Test
    void anEntryServesOnlyTheStampItWasReadUnder() {
        RuleCache cache = new RuleCache(100);
        cache.put("a", stamp(1), rules("a", 10));
        assertThat(cache.get("a", stamp(1))).map(r -> r.hard().get(0).id()).contains("a-0");
        assertThat(cache.get("a", stamp(1))).map(r -> r.hard(AgentScope.SHARED_ONLY).size()).contains(10);
        assertThat(cache.get("a", stamp(2))).isEmpty();
        assertThat(cache.get("b", stamp(1))).isEmpty();
        cache.put("a", stamp(2), rules("a", 5));
        assertThat(cache.get("a", stamp(1))).isEmpty();
        assertThat(cache.get("a", stamp(2))).map(RuleCache.Rules::size).contains(5);
    }

    @Test
    void theTenantsAskedLeastRecentlyLeaveFirstWhenTheBoundIsPassed() {
        RuleCache cache = new RuleCache(25);
        cache.put("a", stamp(1), rules("a", 10));
        cache.put("b", stamp(1), rules("b", 10));
        cache.get("a", stamp(1)); // a is now the most recent
        cache.put("c", stamp(1), rules("c", 10));
        assertThat(cache.get("b", stamp(1))).isEmpty();
        assertThat(cache.get("a", stamp(1))).isPresent();
        assertThat(cache.get("c", stamp(1))).isPresent();
        assertThat(cache.tenants()).isEqualTo(2);
        assertThat(cache.held()).isEqualTo(new ContextService.CachedRules(2, 20));

        cache.put("huge", stamp(1), rules("huge", 40)); // alone over the bound: kept, the others go
        assertThat(cache.tenants()).isEqualTo(1);
        assertThat(cache.get("huge", stamp(1))).map(RuleCache.Rules::size).contains(40);
        cache.put("d", stamp(1), rules("d", 1));
        assertThat(cache.get("huge", stamp(1))).isEmpty();
        assertThat(cache.get("d", stamp(1))).isPresent();
    }
}
