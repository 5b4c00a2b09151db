package io.engram.model.facts;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.model.facts.Supersession.Link;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SupersessionTest {

    private final MapFactTable table = new MapFactTable();

    private Link by(String id) {
        return table.get(id).supersededBy();
    }

    private static MemoryRecord memory(String id, String user, String key, long ts) {
        return MemoryRecord.of(id, "acme", RecordType.MEMORY, "text of " + id, Instant.ofEpochMilli(ts)).user(user)
                .key(key).build();
    }

    private Supersession.Outcome arrive(MemoryRecord r, String... supersedes) throws Exception {
        return Supersession.arrive(table, r, List.of(supersedes));
    }

    @Test
    void aChainOfOneKeyIsSupersededInTsOrder() throws Exception {
        assertThat(arrive(memory("m1", "ann", "user.city", 100)).own()).isNull();
        Supersession.Outcome second = arrive(memory("m2", "ann", "user.city", 200));
        assertThat(second.own()).isNull();
        assertThat(second.changed()).containsExactly(Map.entry("m1", new Link("m2", 200)));
        Supersession.Outcome third = arrive(memory("m3", "ann", "user.city", 300));
        assertThat(third.changed()).containsExactly(Map.entry("m2", new Link("m3", 300)));
        assertThat(by("m1")).isEqualTo(new Link("m2", 200));
    }

    @Test
    void anOlderMemoryArrivingLateIsStoredSupersededAndRelinksItsPredecessor() throws Exception {
        arrive(memory("m1", "ann", "user.city", 100));
        arrive(memory("m3", "ann", "user.city", 300));
        Supersession.Outcome late = arrive(memory("m2", "ann", "user.city", 200));
        assertThat(late.own()).isEqualTo(new Link("m3", 300));
        assertThat(late.changed()).containsExactly(Map.entry("m1", new Link("m2", 200)));
    }

    @Test
    void theSameKeyOfAnotherUserIsAnotherSlot() throws Exception {
        arrive(memory("a1", "ann", "user.city", 100));
        Supersession.Outcome bob = arrive(memory("b1", "bob", "user.city", 200));
        assertThat(bob.changed()).isEmpty();
        assertThat(by("a1")).isNull();
    }

    @Test
    void anExplicitSupersedeUsesTheSuperseders_validFromAndMayNameAMemoryNotYetStored() throws Exception {
        MemoryRecord moved = MemoryRecord.of("m9", "acme", RecordType.MEMORY, "moved", Instant.ofEpochMilli(500))
                .validity(Instant.ofEpochMilli(400), null).build();
        Supersession.Outcome out = arrive(moved, "m0");
        assertThat(out.changed()).as("m0 is not stored yet: nothing to write").isEmpty();
        Supersession.Outcome old = arrive(memory("m0", null, null, 10));
        assertThat(old.own()).isEqualTo(new Link("m9", 400));
    }

    @Test
    void theEarliestSupersederWins() throws Exception {
        arrive(memory("m1", "ann", "user.city", 100));
        arrive(memory("x", null, null, 300), "m1");
        assertThat(by("m1")).isEqualTo(new Link("x", 300));
        arrive(memory("m2", "ann", "user.city", 200));
        assertThat(by("m1")).as("the key's next memory is earlier").isEqualTo(new Link("m2", 200));
    }

    @Test
    void anEdgeClosingACycleIsRefusedAndBothMemoriesStay() throws Exception {
        arrive(memory("a", null, null, 100));
        arrive(memory("b", null, null, 200), "a");
        Supersession.Outcome c = arrive(memory("c", null, null, 300), "b");
        assertThat(c.refused()).isEmpty();
        Supersession.Outcome back = arrive(memory("a", null, null, 100), "c");
        assertThat(back.refused()).containsExactly("c");
        assertThat(by("c")).isNull();
        assertThat(arrive(memory("d", null, null, 400), "d").refused()).as("itself").containsExactly("d");
    }

    @Test
    void aForgottenMemoryIsNotWrittenAgainAndWhatItReplacedStaysReplaced() throws Exception {
        arrive(memory("m1", "ann", "user.city", 100));
        arrive(memory("m2", "ann", "user.city", 200));
        Supersession.forget(table, "m1", null);
        Supersession.Outcome third = arrive(memory("m3", "ann", "user.city", 300), "m1");
        assertThat(third.changed()).as("m1 forgotten: no update of it").containsExactly(
                Map.entry("m2", new Link("m3", 300)));
        Supersession.forget(table, null, "ann");
        assertThat(table.all()).allMatch(Fact::forgotten);
        arrive(memory("m2", "ann", "user.city", 200)); // written again after the forget
        Supersession.Outcome fourth = arrive(memory("m4", "ann", "user.city", 400));
        assertThat(fourth.changed()).as("m3 still forgotten, m2 stored again").isEmpty();
        assertThat(by("m2")).isEqualTo(new Link("m3", 300));
    }

    @Test
    void aForgottenTenantsMemoriesAreAllForgottenAndNoneIsMarkedAgain() throws Exception {
        arrive(memory("m1", "ann", "user.city", 100));
        arrive(memory("m2", "ann", "user.city", 200));
        arrive(memory("b1", "bob", "user.city", 150));
        arrive(memory("x", null, null, 50));
        Supersession.forgetAll(table);
        assertThat(table.all()).hasSize(4).allMatch(Fact::forgotten);
        Supersession.Outcome later = arrive(memory("m3", "ann", "user.city", 300), "x", "b1");
        assertThat(later.changed()).as("no mark of a forgotten memory is written").isEmpty();
        assertThat(by("m2")).as("its edges stay").isEqualTo(new Link("m3", 300));
    }

    @Test
    void aMemoryMovedToAnotherKeyLeavesItsOldSlot() throws Exception {
        arrive(memory("m1", "ann", "user.city", 100));
        arrive(memory("m2", "ann", "user.city", 200));
        Supersession.Outcome moved = arrive(memory("m2", "ann", "user.country", 200));
        assertThat(moved.changed()).containsOnlyKeys("m1");
        assertThat(moved.changed().get("m1")).as("m1 is current again").isNull();
        assertThat(moved.own()).isNull();
    }

    @Test
    void aReadThatFoundTwoVersionsOfAFactKeepsTheOneThatHolds() {
        MemoryRecord paris = memory("m1", "ann", "user.city", 100);
        MemoryRecord lyon = memory("m2", "ann", "user.city", 200);
        MemoryRecord bobs = memory("b1", "bob", "user.city", 50);
        MemoryRecord plain = MemoryRecord.of("n1", "acme", RecordType.MEMORY, "no facts", Instant.ofEpochMilli(10)).build();
        MemoryRecord replaced = MemoryRecord.of("x1", "acme", RecordType.MEMORY, "old plan", Instant.ofEpochMilli(20)).build();
        MemoryRecord replacing = MemoryRecord.of("x2", "acme", RecordType.MEMORY, "new plan", Instant.ofEpochMilli(30))
                .supersedes(List.of("x1")).build();
        List<MemoryRecord> found = List.of(replaced, paris, plain, lyon, replacing, bobs);

        assertThat(Supersession.holding(found, Instant.ofEpochMilli(300))).as("in the order found")
                .containsExactly(plain, lyon, replacing, bobs);
        assertThat(Supersession.holding(found, Instant.ofEpochMilli(150)))
                .as("as of before Lyon: Paris held then").containsExactly(paris, plain, lyon, replacing, bobs);
        List<MemoryRecord> noFacts = List.of(plain, replaced);
        assertThat(Supersession.holding(noFacts, Instant.ofEpochMilli(300))).isSameAs(noFacts);
    }
}
