package io.engram.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.engram.model.facts.Validity;
import io.engram.model.retrieval.AgentScope;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.model.retrieval.TurnWindows;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What every {@link MemoryStore} does, whatever holds the records: each implementation has a {@code *Test} subclass
 * that opens it ({@code OpenSearchMemoryStoreContractTest} on a real node, {@code InMemoryMemoryStoreContractTest}),
 * so a fake used by harness tests cannot drift from the store production uses. Reads follow a {@code refresh()}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class MemoryStoreContract {

    /** A store over the index {@code name}, not set up yet; {@code name} starts with {@code engram-memories-}. */
    protected abstract MemoryStore open(String name);

    private MemoryStore store;

    @BeforeAll
    void openStore() {
        store = open("engram-memories-contract");
        store.ensureIndex("test-vectors", 3);
    }

    @AfterAll
    void closeStore() {
        store.close();
    }

    private List<String> ids(String tenant) {
        store.refresh();
        return store.find(tenant, Map.of(), Set.of(), 100, null, true).stream().map(MemoryRecord::id).sorted().toList();
    }

    @Test
    void rewritingTheSameRecordsKeepsCountAndContent() {
        List<MemoryRecord> records = List.of(
                Records.memory("idem", "idem-1", "the deploy key lives in the vault", new float[] {1, 0, 0}),
                Records.memory("idem", "idem-2", "lunch is at noon", new float[] {0, 1, 0}),
                Records.memory("idem", "idem-3", "the cat is called Miso", new float[] {0, 0, 1}));
        store.upsert(records);
        store.upsert(records);
        store.refresh();
        assertThat(store.count("idem", Set.of())).isEqualTo(3);
        assertThat(store.find("idem", Map.of(), Set.of(), 10, null, true)).as("with their vectors")
                .containsExactlyInAnyOrderElementsOf(records);
    }

    @Test
    void deletesRemoveByIdAndAMissingIdIsNoError() {
        store.upsert(List.of(Records.memory("del", "del-1", "one", new float[] {1, 0, 0}),
                Records.memory("del", "del-2", "two", new float[] {0, 1, 0})));
        store.delete("del", List.of("del-1", "del-gone"));
        assertThat(ids("del")).containsExactly("del-2");
    }

    @Test
    void aNewDocumentVersionReplacesTheOldChunks() {
        store.upsert(List.of(
                Records.chunk("ver", "ver-v1-0", RecordType.INVARIANT, 1, "AGENTS.md", 1, 0, "- Always use tabs", new float[] {1, 0, 0}),
                Records.chunk("ver", "ver-v1-1", RecordType.LORE, 0, "AGENTS.md", 1, 1, "We like tabs", new float[] {0, 1, 0}),
                Records.chunk("ver", "other-doc", RecordType.LORE, 0, "SOUL.md", 1, 0, "Soul lore", new float[] {0, 0, 1})));
        store.upsert(List.of(
                Records.chunk("ver", "ver-v2-0", RecordType.INVARIANT, 1, "AGENTS.md", 2, 0, "- Always use spaces", new float[] {1, 0, 0})));
        assertThat(store.deleteOlderDocumentVersions("ver", "agent-1", "AGENTS.md", 2)).as("written just before").isEqualTo(2);
        assertThat(ids("ver")).containsExactly("other-doc", "ver-v2-0");
    }

    @Test
    void queriesAreScopedToTheirTenant() {
        store.upsert(List.of(
                Records.memory("alpha", "alpha-1", "shared words about the vault", new float[] {1, 0, 0}),
                Records.memory("beta", "beta-1", "shared words about the vault", new float[] {1, 0, 0})));
        store.refresh();
        assertThat(store.bm25("alpha", "vault", 10, Set.of())).extracting(s -> s.record().id()).containsExactly("alpha-1");
        assertThat(store.knn("beta", new float[] {1, 0, 0}, 10, Set.of())).extracting(s -> s.record().id())
                .containsExactly("beta-1");
        assertThat(store.get("beta", "alpha-1")).isEmpty();
        assertThatThrownBy(() -> store.bm25("", "vault", 10, Set.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.reads(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void bm25FindsTheRecordsSharingAWordBestFirstAndNothingForStopWords() {
        store.upsert(List.of(
                Records.memory("lex", "lex-1", "the invoices are due on friday", new float[] {1, 0, 0}),
                Records.memory("lex", "lex-2", "the invoices were paid", new float[] {0, 1, 0}),
                Records.memory("lex", "lex-3", "lunch is at noon", new float[] {0, 0, 1}),
                Records.turn("lex", "s1", "lex-t1", "user", 0, "friday invoices again", 3, new float[] {0, 0, 1})));
        store.refresh();
        assertThat(store.bm25("lex", "invoices friday", 10, Set.of(RecordType.MEMORY)))
                .extracting(s -> s.record().id()).containsExactly("lex-1", "lex-2");
        assertThat(store.bm25("lex", "invoices friday", 1, Set.of())).hasSize(1);
        assertThat(store.bm25("lex", "the and of", 10, Set.of())).isEmpty();
    }

    @Test
    void aBatchAnswersEachOfItsSearchesAndKnnScoresAreCosines() {
        store.upsert(List.of(
                Records.memory("batch", "batch-x", "the deploy key lives in the vault", new float[] {1, 0, 0}),
                Records.memory("batch", "batch-y", "lunch is at noon", new float[] {0, 1, 0}),
                Records.turn("batch", "s1", "batch-t0", "user", 0, "where is the key", 4, new float[] {0, 0, 1}),
                Records.turn("batch", "s1", "batch-t1", "assistant", 1, "in the vault", 3, new float[] {0, 0, 1})));
        store.refresh();
        MemoryStore.ReadBatch batch = store.reads("batch");
        var lexical = batch.bm25("vault", 10, Set.of(RecordType.MEMORY));
        var semantic = batch.knn(new float[] {0.6f, 0.8f, 0}, 10, Set.of(RecordType.MEMORY));
        var session = batch.find(Map.of("session_id", "s1"), Set.of(RecordType.TURN), 10, "position", false);
        var anyOf = batch.find(Map.of("role", List.of("user", "assistant")), Set.of(), 10, "position", true);
        assertThatThrownBy(lexical::get).isInstanceOf(IllegalStateException.class).hasMessageContaining("before its batch ran");
        batch.run();
        assertThatThrownBy(() -> batch.documents()).isInstanceOf(IllegalStateException.class).hasMessageContaining("has run");

        assertThat(lexical.get()).extracting(h -> h.record().id()).containsExactly("batch-x");
        assertThat(lexical.get().get(0).record().embedding()).containsExactly(1, 0, 0); // BM25's hits bring their vector
        assertThat(semantic.get()).extracting(h -> h.record().id()).containsExactly("batch-y", "batch-x");
        assertThat(semantic.get().get(0).score()).isCloseTo(0.8, within(1e-6));
        assertThat(semantic.get().get(1).score()).isCloseTo(0.6, within(1e-6));
        assertThat(semantic.get()).allSatisfy(h -> assertThat(h.record().embedding()).isNull());
        assertThat(session.get()).extracting(MemoryRecord::id).containsExactly("batch-t1", "batch-t0");
        assertThat(session.get()).allSatisfy(t -> assertThat(t.embedding()).isNull());
        assertThat(anyOf.get()).extracting(MemoryRecord::id).containsExactly("batch-t0", "batch-t1");
        assertThat(store.knn("batch", new float[] {0.6f, 0.8f, 0}, 1, Set.of(RecordType.MEMORY)))
                .extracting(h -> h.record().id()).containsExactly("batch-y");
    }

    @Test
    void theStampOfRulesMovesWithEveryChangeAndNotWithARewrite() {
        List<MemoryRecord> v1 = List.of(
                Records.chunk("stamp", "stamp-v1-0", RecordType.INVARIANT, 1, "AGENTS.md", 1, 0, "- Always use tabs", new float[] {1, 0, 0}),
                Records.chunk("stamp", "stamp-v1-1", RecordType.INVARIANT, 2, "AGENTS.md", 1, 1, "Prefer short answers", new float[] {0, 1, 0}));
        store.upsert(v1);
        store.refresh();
        MemoryStore.Stamp first = stamp();
        assertThat(first).isEqualTo(new MemoryStore.Stamp(2, 2, 3, 1, 4 + 3, List.of("agent-1")));

        store.upsert(v1); // a replay writes the same records again
        store.refresh();
        assertThat(stamp()).isEqualTo(first);

        store.upsert(List.of(Records.chunk("stamp", "stamp-v2-0", RecordType.INVARIANT, 1, "AGENTS.md", 2, 0,
                "- Always use spaces", new float[] {1, 0, 0})));
        store.refresh();
        MemoryStore.Stamp bothVersions = stamp();
        assertThat(bothVersions).isNotEqualTo(first);
        store.deleteOlderDocumentVersions("stamp", "agent-1", "AGENTS.md", 2);
        MemoryStore.Stamp second = stamp();
        assertThat(second).isNotEqualTo(bothVersions).isNotEqualTo(first);
        assertThat(second.records()).isEqualTo(1);

        // the same rule moved from tier 1 to tier 2 (a changed lexer, replayed)
        store.upsert(List.of(Records.chunk("stamp", "stamp-v2-0", RecordType.INVARIANT, 2, "AGENTS.md", 2, 0,
                "- Always use spaces", new float[] {1, 0, 0})));
        store.refresh();
        assertThat(stamp()).isNotEqualTo(second);

        store.forget("stamp", ForgetScope.MEMORY, "stamp-v2-0");
        assertThat(stamp().records()).isZero();
    }

    private MemoryStore.Stamp stamp() {
        MemoryStore.ReadBatch batch = store.reads("stamp");
        var stamp = batch.stamp(Map.of("tier", List.of(1, 2)), Set.of(RecordType.INVARIANT));
        batch.run();
        return stamp.get();
    }

    @Test
    void aTenantsDocumentsAreListedByAgentAndPathWithTheirVersion() {
        store.upsert(List.of(
                Records.chunk("docs", "docs-a1", RecordType.INVARIANT, 1, "AGENTS.md", 3, 0, "- Never log secrets", new float[] {1, 0, 0}),
                Records.chunk("docs", "docs-a2", RecordType.LORE, 3, "AGENTS.md", 3, 1, "Founded in 1921.", new float[] {0, 1, 0}),
                Records.chunk("docs", "docs-s1", RecordType.INVARIANT, 2, "SOUL.md", 1, 0, "Be warm.", new float[] {0, 0, 1}),
                Records.memory("docs", "docs-m1", "not a document", new float[] {1, 1, 0}),
                Records.chunk("other", "other-a1", RecordType.INVARIANT, 1, "OTHER.md", 1, 0, "- Other", new float[] {1, 0, 0})));
        store.refresh();
        MemoryStore.ReadBatch batch = store.reads("docs");
        var documents = batch.documents();
        batch.run();
        assertThat(documents.get()).containsExactly(new MemoryStore.Document("agent-1", "AGENTS.md", 3, 2),
                new MemoryStore.Document("agent-1", "SOUL.md", 1, 1));
    }

    @Test
    void aDocumentTheMappingRefusesIsAClearFailureNotADrop() {
        long failedBefore = store.writeStats().documentsFailed();
        MemoryRecord wrongDimension = Records.memory("bad", "bad-1", "four dimensions", new float[] {1, 0, 0, 0});
        MemoryRecord fine = Records.memory("bad", "bad-2", "three dimensions", new float[] {0, 1, 0});
        assertThatThrownBy(() -> store.upsert(List.of(wrongDimension, fine)))
                .isInstanceOf(StoreWriteException.class)
                .satisfies(e -> assertThat(((StoreWriteException) e).failures())
                        .singleElement().satisfies(f -> {
                            assertThat(f.id()).isEqualTo("bad-1");
                            assertThat(f.status()).isEqualTo(400);
                        }));
        assertThat(ids("bad")).containsExactly("bad-2");
        assertThat(store.writeStats().documentsFailed() - failedBefore).isEqualTo(1);
    }

    @Test
    void turnsAroundAreTheTurnsWithinTheRadiusOfTheGivenPositionsInTheirSessions() {
        List<MemoryRecord> turns = new ArrayList<>();
        for (int seq = 0; seq < 10; seq++) {
            for (String session : List.of("a", "b")) {
                turns.add(Records.turn("around", session, "around/" + session + "/" + seq, "user", seq, "turn " + seq,
                        2, new float[] {1, 0, 0}));
            }
        }
        turns.add(Records.memory("around", "around-memory", "not a turn", new float[] {1, 0, 0}));
        store.upsert(turns);
        store.refresh();

        List<MemoryRecord> found = store.turnsAround("around", Map.of("a", Set.of(0, 5), "b", Set.of(9)), 1);

        assertThat(found).extracting(MemoryRecord::id).containsExactlyInAnyOrder(
                "around/a/0", "around/a/1", "around/a/4", "around/a/5", "around/a/6", "around/b/8", "around/b/9");
        assertThat(found).allSatisfy(t -> assertThat(t.embedding()).isNull()); // the read path does not use them
        assertThat(found).extracting(MemoryRecord::text).contains("turn 5");
        assertThat(store.turnsAround("around", Map.of(), 1)).isEmpty();
        assertThat(store.turnsAround("other-tenant", Map.of("a", Set.of(0)), 1)).isEmpty();
    }

    private static MemoryRecord summary(String tenant, String session, String id, List<String> refs) {
        return MemoryRecord.of(id, tenant, RecordType.SUMMARY, "a summary of " + refs, Records.T0)
                .embedding(new float[] {0, 1, 0}).provenance(refs, 1).session(session).tokens(5).build();
    }

    @Test
    void aForgetDeletesItsScopeAndWhatWasBuiltFromItAndNothingElse() {
        String t = "forgetting";
        List<MemoryRecord> records = new ArrayList<>();
        for (String session : List.of("s1", "s2")) {
            for (int seq = 0; seq < 3; seq++) {
                records.add(Records.turn(t, session, RecordIds.turn(t, session, "t" + seq), "user", seq, "turn " + seq,
                        2, new float[] {1, 0, 0}));
            }
        }
        // user-1 speaks in s1 and s2 (Records.turn); bob in s3, whose summary carries no user (older summaries)
        records.add(MemoryRecord.of(RecordIds.turn(t, "s3", "t0"), t, RecordType.TURN, "bob here", Records.T0)
                .embedding(new float[] {1, 0, 0}).session("s3").user("bob").position(0).tokens(2).build());
        records.add(summary(t, "s1", "sum-s1", List.of("t0", "t1")));
        records.add(summary(t, "s2", "sum-s2", List.of("t0")));
        records.add(summary(t, "s3", "sum-s3", List.of("t0")));
        records.add(Records.memory(t, RecordIds.memory(t, "m1"), "a gateway memory", new float[] {0, 0, 1}));
        records.add(MemoryRecord.of(RecordIds.memory(t, "m2"), t, RecordType.LESSON, "a lesson from m1", Records.T0)
                .embedding(new float[] {0, 0, 1}).provenance(List.of(RecordIds.memory(t, "m1")), 1).tokens(4).build());
        records.add(Records.memory("forgetting-other", RecordIds.turn("forgetting-other", "s1", "t0"), "other tenant",
                new float[] {1, 0, 0}));
        store.upsert(records); // not refreshed: a forget covers what was written just before it

        // one turn: it and the summary of its session that names it; s2's summary names another session's t0
        assertThat(store.forget(t, ForgetScope.MEMORY, RecordIds.turn(t, "s1", "t1"))).isEqualTo(2);
        assertThat(ids(t)).doesNotContain(RecordIds.turn(t, "s1", "t1"), "sum-s1").contains("sum-s2",
                RecordIds.turn(t, "s1", "t0"));
        // one gateway memory and the lesson built from it
        assertThat(store.forget(t, ForgetScope.MEMORY, RecordIds.memory(t, "m1"))).isEqualTo(2);
        // a session: its turns and summaries
        assertThat(store.forget(t, ForgetScope.SESSION, "s2")).isEqualTo(4);
        // a user: their records and everything of their sessions; bob's session stays
        assertThat(store.forget(t, ForgetScope.USER, "user-1")).isEqualTo(2);
        assertThat(ids(t)).containsExactly(RecordIds.turn(t, "s3", "t0"), "sum-s3");
        assertThat(store.forget(t, ForgetScope.USER, "bob")).as("a summary without a user goes with its session")
                .isEqualTo(2);
        assertThat(ids(t)).isEmpty();
        assertThat(store.forget(t, ForgetScope.USER, "bob")).as("a replay deletes nothing more").isZero();
        assertThat(ids("forgetting-other")).hasSize(1);
    }

    private static MemoryRecord turnOf(String tenant, String user, String session, int seq) {
        return MemoryRecord.of(RecordIds.turn(tenant, session, "t" + seq), tenant, RecordType.TURN,
                user + " said thing " + seq, Records.T0.plusSeconds(seq)).embedding(new float[] {1, 0, 0})
                .session(session).user(user).role("user").position(seq).tokens(4).build();
    }

    @Test
    void aForgetOfAUserWithThousandsOfRecordsDeletesExactlyThemAndNoOneElses() {
        String t = "forgetting-many";
        List<MemoryRecord> records = new ArrayList<>();
        for (int s = 0; s < 1_500; s++) { // ann: 3,000 turns in 1,500 sessions
            records.add(turnOf(t, "ann", "ann-s" + s, 0));
            records.add(turnOf(t, "ann", "ann-s" + s, 1));
        }
        for (int s = 0; s < 500; s++) { // bob: 1,000 turns in sessions of his own, beside ann's
            records.add(turnOf(t, "bob", "bob-s" + s, 0));
            records.add(turnOf(t, "bob", "bob-s" + s, 1));
        }
        for (int s = 0; s < 250; s++) { // a user named ann in another tenant
            records.add(turnOf("forgetting-many-other", "ann", "ann-s" + s, 0));
        }
        store.upsert(records);
        assertThat(store.forget(t, ForgetScope.USER, "ann")).isEqualTo(3_000);
        store.refresh();
        assertThat(store.count(t, Set.of())).as("bob's turns, all kept").isEqualTo(1_000);
        assertThat(store.find(t, Map.of("user_id", "ann"), Set.of(), 10, null, false)).isEmpty();
        assertThat(store.count("forgetting-many-other", Set.of())).as("the other tenant's ann is not this one")
                .isEqualTo(250);
        assertThat(store.forget(t, ForgetScope.USER, "ann")).as("a replay deletes nothing more").isZero();
    }

    /**
     * A store over the index {@code name} whose forget of a user reads and deletes the user's sessions
     * {@code sessionsPerPage} at a time, where it enumerates them (OpenSearch); the same as {@link #open} otherwise.
     */
    protected MemoryStore openPagingSessions(String name, int sessionsPerPage) {
        return open(name);
    }

    @Test
    void aForgetOfAUserPagesThroughTheirSessionsAndDeletesEachOnce() {
        String t = "forgetting-paged";
        List<MemoryRecord> records = new ArrayList<>();
        for (int s = 0; s < 23; s++) { // cy: 23 sessions of two turns and a summary without a user: 5 pages of 5
            String session = String.format("cy-s%02d", s);
            records.add(turnOf(t, "cy", session, 0));
            records.add(turnOf(t, "cy", session, 1));
            records.add(summary(t, session, "sum-" + session, List.of("t0", "t1")));
        }
        records.add(MemoryRecord.of(RecordIds.memory(t, "cy-m1"), t, RecordType.MEMORY,
                "cy likes tea", Records.T0).embedding(new float[] {0, 0, 1}).user("cy").tokens(3).build());
        for (int s = 0; s < 4; s++) { // dee: sessions of her own, sorting between cy's pages' sessions
            records.add(turnOf(t, "dee", String.format("cy-s%02d-dee", s * 5), 0));
            records.add(turnOf(t, "dee", String.format("cy-s%02d-dee", s * 5), 1));
        }
        records.add(turnOf("forgetting-paged-other", "cy", "cy-s00", 0));
        try (MemoryStore paged = openPagingSessions("engram-memories-contract-paged", 5)) {
            paged.ensureIndex("test-vectors", 3);
            paged.upsert(records);
            assertThat(paged.forget(t, ForgetScope.USER, "cy")).as("69 of 23 sessions and cy's memory")
                    .isEqualTo(23 * 3 + 1);
            paged.refresh();
            assertThat(paged.count(t, Set.of())).as("dee's 8 turns, all kept").isEqualTo(8);
            assertThat(paged.find(t, Map.of("user_id", "dee"), Set.of(), 10, null, true)).hasSize(8);
            assertThat(paged.count("forgetting-paged-other", Set.of())).as("the other tenant's cy").isEqualTo(1);
            assertThat(paged.forget(t, ForgetScope.USER, "cy")).as("a replay deletes nothing more").isZero();
        }
    }

    private static MemoryRecord window(String tenant, String session, List<String> turnIds) {
        return MemoryRecord.of(TurnWindows.id(tenant, session, turnIds.get(0), turnIds.get(turnIds.size() - 1)), tenant,
                RecordType.WINDOW, "turns " + turnIds, Records.T0).embedding(new float[] {0, 1, 0}).session(session)
                .user("user-1").provenance(turnIds, 0).position(0).tokens(6).build();
    }

    @Test
    void entitiesAreTheNamesRecordsMentionWithTheirCoMentionsAndGoWithTheirRecords() {
        String t = "entities";
        float[] v = {1, 0, 0};
        store.upsert(List.of(
                Records.turn(t, "s1", RecordIds.turn(t, "s1", "t0"), "user", 0, "Caroline: I moved here from Sweden with Anna.", 9, v),
                Records.turn(t, "s1", RecordIds.turn(t, "s1", "t1"), "assistant", 1, "How is Anna settling in after Sweden?", 9, v),
                Records.turn(t, "s2", RecordIds.turn(t, "s2", "t0"), "user", 2, "Anna starts at Google in Berlin next week.", 9, v),
                window(t, "s1", List.of("t0", "t1")),
                Records.memory("entities-other", RecordIds.memory("entities-other", "m"), "Anna lives in Oslo.", v)));
        store.refresh();

        List<MemoryReader.Entity> all = store.entities(t, Map.of(), 10, 3, 2);
        assertThat(all).extracting(MemoryReader.Entity::name, MemoryReader.Entity::records).as("a window mentions nothing of its own; "
                + "a speaker label is no mention; another tenant's Oslo is not here").containsExactly(
                tuple("anna", 3L), tuple("sweden", 2L), tuple("berlin", 1L), tuple("google", 1L));
        assertThat(all.get(0).coMentions()).containsExactly(new MemoryReader.CoMention("sweden", 2),
                new MemoryReader.CoMention("berlin", 1), new MemoryReader.CoMention("google", 1));
        assertThat(all.get(0).mentionedBy()).extracting(MemoryRecord::id).as("newest first, two asked")
                .containsExactly(RecordIds.turn(t, "s2", "t0"), RecordIds.turn(t, "s1", "t1"));
        assertThat(all.get(0).mentionedBy()).allMatch(r -> r.embedding() == null);
        assertThat(store.entities(t, Map.of(), 1, 1, 0)).singleElement().satisfies(e -> {
            assertThat(e.coMentions()).containsExactly(new MemoryReader.CoMention("sweden", 2));
            assertThat(e.mentionedBy()).as("no mentions asked").isEmpty();
        });

        assertThat(store.entities(t, Map.of("session_id", "s2"), 10, 3, 2)).extracting(MemoryReader.Entity::name)
                .containsExactly("anna", "berlin", "google");
        assertThat(store.entities(t, Map.of(MemoryReader.ENTITIES, "sweden"), 10, 3, 5))
                .extracting(MemoryReader.Entity::name, MemoryReader.Entity::records)
                .as("the records naming Sweden, and who else they name").containsExactly(tuple("anna", 2L), tuple("sweden", 2L));

        store.forget(t, ForgetScope.SESSION, "s1");
        store.refresh();
        assertThat(store.entities(t, Map.of(), 10, 3, 2)).extracting(MemoryReader.Entity::name, MemoryReader.Entity::records)
                .as("a forgotten session's mentions go with it").containsExactly(tuple("anna", 1L), tuple("berlin", 1L),
                        tuple("google", 1L));
        store.forget(t, ForgetScope.USER, "user-1");
        store.refresh();
        assertThat(store.entities(t, Map.of(), 10, 3, 2)).as("a forgotten user's mentions go with them").isEmpty();
        assertThat(store.entities("entities-other", Map.of(), 10, 3, 2)).extracting(MemoryReader.Entity::name)
                .containsExactly("anna", "oslo");
    }

    @Test
    void aWindowOfTurnsIsForgottenWithAnyOfItsTurnsItsSessionOrItsUser() {
        String t = "forgetting-windows";
        List<MemoryRecord> records = new ArrayList<>();
        for (String session : List.of("s1", "s2", "s3")) {
            for (int seq = 0; seq < 4; seq++) {
                records.add(Records.turn(t, session, RecordIds.turn(t, session, "t" + seq), "user", seq, "turn " + seq,
                        2, new float[] {1, 0, 0}));
            }
            records.add(window(t, session, List.of("t0", "t1", "t2")));
            records.add(window(t, session, List.of("t2", "t3")));
        }
        store.upsert(records);

        // one turn: it and the windows of its session that hold it, not those of another session
        assertThat(store.forget(t, ForgetScope.MEMORY, RecordIds.turn(t, "s1", "t1"))).isEqualTo(2);
        assertThat(ids(t)).doesNotContain(TurnWindows.id(t, "s1", "t0", "t2"))
                .contains(TurnWindows.id(t, "s1", "t2", "t3"), TurnWindows.id(t, "s2", "t0", "t2"));
        // a session: its turns and windows
        assertThat(store.forget(t, ForgetScope.SESSION, "s2")).isEqualTo(6);
        // a user: everything of theirs
        assertThat(store.forget(t, ForgetScope.USER, "user-1")).isEqualTo(3 + 1 + 6);
        assertThat(ids(t)).isEmpty();
    }

    @Test
    void aForgetOfAMemoryReachesWhatNamesItByTheGatewaysOwnId() {
        String t = "forgetting-own";
        store.upsert(List.of(Records.memory(t, RecordIds.memory(t, "m-1"), "Ann likes tea", new float[] {1, 0, 0}),
                MemoryRecord.of(RecordIds.memory(t, "m-2"), t, RecordType.LESSON, "from m-1", Records.T0)
                        .provenance(List.of("m-1"), 1).build(),
                MemoryRecord.of(RecordIds.memory(t, "m-10"), t, RecordType.LESSON, "from m-10", Records.T0)
                        .provenance(List.of("m-10"), 1).build()));
        assertThat(store.forget(t, ForgetScope.MEMORY, RecordIds.memory(t, "m-1"))).isEqualTo(2);
        assertThat(ids(t)).containsExactly(RecordIds.memory(t, "m-10"));
    }

    /** One record of every type a tenant's memory holds: turns, a window, a summary, memories, document chunks. */
    private static List<MemoryRecord> everyTypeOf(String t) {
        List<MemoryRecord> records = new ArrayList<>();
        for (int seq = 0; seq < 3; seq++) {
            records.add(Records.turn(t, "s1", RecordIds.turn(t, "s1", "t" + seq), "user", seq, "turn " + seq, 2,
                    new float[] {1, 0, 0}));
        }
        records.add(window(t, "s1", List.of("t0", "t1", "t2")));
        records.add(summary(t, "s1", t + "-sum-s1", List.of("t0", "t1")));
        records.add(Records.memory(t, RecordIds.memory(t, "m1"), "a gateway memory", new float[] {0, 0, 1}));
        records.add(MemoryRecord.of(RecordIds.memory(t, "m2"), t, RecordType.LESSON, "a lesson from m1", Records.T0)
                .embedding(new float[] {0, 0, 1}).provenance(List.of(RecordIds.memory(t, "m1")), 1).tokens(4).build());
        records.add(MemoryRecord.of(RecordIds.memory(t, "m3"), t, RecordType.KNOWLEDGE, "knowledge of ann", Records.T0)
                .embedding(new float[] {0, 1, 1}).user("ann").key("user.city").tokens(3).build());
        records.add(Records.chunk(t, "doc-" + t + "-0", RecordType.INVARIANT, 1, "AGENTS.md", 1, 0, "- Always use tabs",
                new float[] {1, 0, 0}));
        records.add(Records.chunk(t, "doc-" + t + "-1", RecordType.LORE, 0, "AGENTS.md", 1, 1, "We like tabs",
                new float[] {0, 1, 0}));
        return records;
    }

    @Test
    void aForgetOfATenantDeletesEveryRecordOfItAndNoneOfAnotherTenants() {
        String t = "forgetting-tenant";
        String other = "forgetting-tenant-b"; // its id starts with the deleted one's; the same sessions, users, keys
        List<MemoryRecord> records = new ArrayList<>(everyTypeOf(t));
        records.addAll(everyTypeOf(other));
        assertThat(records.stream().map(MemoryRecord::type).distinct()).as("every type").hasSize(RecordType.values().length);
        store.upsert(records); // not refreshed: a forget covers what was written just before it

        assertThat(store.forget(t, ForgetScope.TENANT, t)).isEqualTo(10);
        assertThat(ids(t)).isEmpty();
        assertThat(ids(other)).as("the other tenant's records, all kept").isEqualTo(everyTypeOf(other).stream()
                .map(MemoryRecord::id).sorted().toList());
        assertThat(store.forget(t, ForgetScope.TENANT, t)).as("a replay deletes nothing more").isZero();
    }

    private static MemoryRecord fact(String tenant, String id, String text, String day, float[] vector) {
        return MemoryRecord.of(RecordIds.memory(tenant, id), tenant, RecordType.MEMORY, text,
                Instant.parse("2026-" + day + "T10:00:00Z")).embedding(vector).user("ann").key("user.city").tokens(4).build();
    }

    @Test
    void searchesOfAValidityReturnTheMemoriesValidThenAndSupersedingKeepsTheRest() {
        String t = "validity";
        MemoryRecord paris = fact(t, "m1", "Ann lives in Paris", "01-10", new float[] {1, 0, 0});
        MemoryRecord berlin = fact(t, "m2", "Ann lives in Berlin", "03-01", new float[] {1, 0.1f, 0});
        MemoryRecord trip = fact(t, "m3", "Ann lives in Rome for a week", "04-01", new float[] {1, 0.2f, 0}).toBuilder()
                .key(null).validity(Instant.parse("2026-05-01T00:00:00Z"), Instant.parse("2026-05-08T00:00:00Z"))
                .expiresAt(Instant.parse("2026-05-05T00:00:00Z")).build();
        store.upsert(List.of(paris, berlin, trip));
        store.supersede(t, List.of(new MemoryWriter.Superseded(paris.id(), berlin.id(), berlin.ts()),
                new MemoryWriter.Superseded(RecordIds.memory(t, "forgotten"), berlin.id(), berlin.ts())));
        store.refresh();
        assertThat(store.get(t, paris.id()).orElseThrow()).as("other fields kept")
                .isEqualTo(paris.withSupersededBy(berlin.id(), berlin.ts()).withEmbedding(null, 4));
        assertThat(store.get(t, RecordIds.memory(t, "forgotten"))).as("nothing written back to life").isEmpty();

        assertThat(validIds(t, Validity.now(Instant.parse("2026-04-01T00:00:00Z")))).containsExactly(berlin.id());
        assertThat(validIds(t, Validity.now(Instant.parse("2026-05-02T00:00:00Z")))).containsExactly(berlin.id(), trip.id());
        assertThat(validIds(t, Validity.now(Instant.parse("2026-05-06T00:00:00Z")))).as("expired, not yet deleted")
                .containsExactly(berlin.id());
        assertThat(validIds(t, Validity.at(Instant.parse("2026-02-01T00:00:00Z"), Records.T0)))
                .as("as of February: Paris, and nothing written later").containsExactly(paris.id());
        assertThat(validIds(t, null)).hasSize(3);

        store.supersede(t, List.of(new MemoryWriter.Superseded(paris.id(), null, null)));
        store.refresh();
        assertThat(store.get(t, paris.id()).orElseThrow().supersededAt()).as("cleared").isNull();
    }

    /** The ids BM25 and k-NN both find, valid as {@code validity} says (null: every record). */
    private List<String> validIds(String tenant, Validity validity) {
        MemoryReader.ReadBatch batch = validity == null ? store.reads(tenant) : store.reads(tenant, validity, null);
        var lexical = batch.bm25("Ann lives", 10, Set.of());
        var vector = batch.knn(new float[] {1, 0, 0}, 10, Set.of());
        batch.run();
        List<String> ids = lexical.get().stream().map(h -> h.record().id()).sorted().toList();
        assertThat(vector.get().stream().map(h -> h.record().id()).sorted().toList()).isEqualTo(ids);
        return ids;
    }

    @Test
    void searchesForAnAgentKeepItsDocumentsTheSharedOnesAndRecordsOfNoAgent() {
        String t = "agents";
        java.util.function.BiFunction<String, String, MemoryRecord> rule = (id, agent) -> MemoryRecord.of(id, t,
                RecordType.INVARIANT, "Always run the tests " + id, Records.T0).tier(1).document(agent, "AGENTS.md", 1L)
                .position(0).embedding(new float[] {1, 0, 0}).tokens(5).build();
        store.upsert(List.of(rule.apply("coder-rule", "coder"), rule.apply("writer-rule", "writer"),
                rule.apply("shared-rule", AgentScope.SHARED),
                Records.memory(t, "run-tests", "Always run the tests before lunch", new float[] {1, 0.1f, 0})));
        store.refresh();
        assertThat(agentIds(t, new AgentScope("coder"))).containsExactly("coder-rule", "run-tests", "shared-rule");
        assertThat(agentIds(t, AgentScope.SHARED_ONLY)).containsExactly("run-tests", "shared-rule");
        assertThat(agentIds(t, null)).hasSize(4);
    }

    /** The ids BM25 and k-NN both find, among the records {@code agents} sees (null: every record). */
    private List<String> agentIds(String tenant, AgentScope agents) {
        MemoryReader.ReadBatch batch = store.reads(tenant, null, agents);
        var lexical = batch.bm25("run the tests", 10, Set.of());
        var vector = batch.knn(new float[] {1, 0, 0}, 10, Set.of());
        batch.run();
        List<String> ids = lexical.get().stream().map(h -> h.record().id()).sorted().toList();
        assertThat(vector.get().stream().map(h -> h.record().id()).sorted().toList()).isEqualTo(ids);
        return ids;
    }

    @Test
    void retentionDeletesARecordTypeOlderThanTheCutoff() {
        String t = "retention";
        store.upsert(List.of(Records.turn(t, "s1", "turn-old", "user", 0, "old", 1, new float[] {1, 0, 0}),
                Records.turn(t, "s1", "turn-new", "user", 10, "new", 1, new float[] {1, 0, 0}),
                Records.memory(t, "memory-old", "old memory", new float[] {0, 1, 0})));
        assertThat(store.countOlderThan(t, RecordType.TURN, Records.T0.plusSeconds(5))).as("counted first").isEqualTo(1);
        assertThat(store.countOlderThan(t, RecordType.TURN, Records.T0.plusSeconds(11))).isEqualTo(2);
        assertThat(store.deleteOlderThan(t, RecordType.TURN, Records.T0.plusSeconds(5))).isEqualTo(1);
        assertThat(ids(t)).containsExactly("memory-old", "turn-new");
        assertThat(store.countOlderThan(t, RecordType.TURN, Records.T0.plusSeconds(5))).isZero();
        assertThat(store.deleteOlderThan(t, RecordType.TURN, Records.T0.plusSeconds(5))).as("a replay").isZero();
    }

    @Test
    void aListingPagesThroughTheTenantsRecordsNewestFirst() {
        String t = "listing";
        List<MemoryRecord> records = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            records.add(MemoryRecord.of(RecordIds.memory(t, "m" + i), t, i % 2 == 0 ? RecordType.MEMORY : RecordType.LESSON,
                    "note " + i, Records.T0.plusSeconds(i)).embedding(new float[] {1, 0, 0}).tokens(2).build());
        }
        records.add(MemoryRecord.of(RecordIds.memory(t, "m3b"), t, RecordType.MEMORY, "note 3b", Records.T0.plusSeconds(3))
                .embedding(new float[] {1, 0, 0}).tokens(2).build()); // as new as m3: after it by id
        store.upsert(records);
        store.refresh();
        List<String> seen = new ArrayList<>();
        String cursor = null;
        do {
            MemoryStore.Page page = store.list(t, Map.of(), Set.of(), 3, cursor);
            assertThat(page.records()).hasSizeLessThanOrEqualTo(3).allSatisfy(r -> assertThat(r.embedding()).isNull());
            page.records().forEach(r -> seen.add(r.id()));
            cursor = page.nextCursor();
        } while (cursor != null);
        assertThat(seen).containsExactly(RecordIds.memory(t, "m6"), RecordIds.memory(t, "m5"), RecordIds.memory(t, "m4"),
                RecordIds.memory(t, "m3"), RecordIds.memory(t, "m3b"), RecordIds.memory(t, "m2"), RecordIds.memory(t, "m1"),
                RecordIds.memory(t, "m0"));
        assertThat(store.list(t, Map.of(), Set.of(RecordType.LESSON), 10, null).records()).hasSize(3);
        assertThat(store.get(t, RecordIds.memory(t, "m3"))).hasValueSatisfying(r -> assertThat(r.text()).isEqualTo("note 3"));
        assertThat(store.get("someone-else", RecordIds.memory(t, "m3"))).isEmpty();
        assertThat(store.get(t, List.of(RecordIds.memory(t, "m1"), RecordIds.memory(t, "m5"), RecordIds.memory(t, "gone"))))
                .extracting(MemoryRecord::text).containsExactlyInAnyOrder("note 1", "note 5");
        assertThat(store.get(t, List.of())).isEmpty();
        assertThatThrownBy(() -> store.get(t, java.util.Collections.nCopies(MemoryStore.MAX_IDS_PER_GET + 1, "x")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.list(t, Map.of(), Set.of(), 3, "not-a-cursor"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("invalid cursor");
    }

    @Test
    void anExportListingPagesOldestFirstNarrowedByUserAndKeepsItsOrderInItsCursor() {
        String t = "export-scan";
        List<MemoryRecord> records = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            records.add(MemoryRecord.of(RecordIds.memory(t, "m" + i), t, RecordType.MEMORY, "note " + i,
                    Records.T0.plusSeconds(7 - i)).user(i % 3 == 0 ? "ann" : "bob").embedding(new float[] {1, 0, 0})
                    .tokens(2).build());
        }
        records.add(MemoryRecord.of(RecordIds.memory(t, "m5b"), t, RecordType.MEMORY, "note 5b", Records.T0.plusSeconds(2))
                .user("bob").embedding(new float[] {1, 0, 0}).tokens(2).build()); // as old as m5: after it by id
        store.upsert(records);
        store.refresh();
        List<String> seen = new ArrayList<>();
        String cursor = null;
        do {
            MemoryStore.Page page = store.list(t, Map.of(), Set.of(), MemoryReader.Order.OLDEST_FIRST, 3, cursor);
            assertThat(page.records()).hasSizeLessThanOrEqualTo(3).allSatisfy(r -> assertThat(r.embedding()).isNull());
            page.records().forEach(r -> seen.add(r.id().substring(t.length() + 1)));
            cursor = page.nextCursor();
        } while (cursor != null);
        assertThat(seen).containsExactly("m6", "m5", "m5b", "m4", "m3", "m2", "m1", "m0");
        MemoryStore.Page ann = store.list(t, Map.of("user_id", "ann"), Set.of(), MemoryReader.Order.OLDEST_FIRST, 10, null);
        assertThat(ann.records()).extracting(MemoryRecord::text).containsExactly("note 6", "note 3", "note 0");
        assertThat(ann.nextCursor()).isNull();
        String oldestFirst = store.list(t, Map.of(), Set.of(), MemoryReader.Order.OLDEST_FIRST, 2, null).nextCursor();
        String newestFirst = store.list(t, Map.of(), Set.of(), 2, null).nextCursor();
        assertThatThrownBy(() -> store.list(t, Map.of(), Set.of(), 2, oldestFirst))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("invalid cursor");
        assertThatThrownBy(() -> store.list(t, Map.of(), Set.of(), MemoryReader.Order.OLDEST_FIRST, 2, newestFirst))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("invalid cursor");
    }

    @Test
    void findSortsByAFieldWithinTheSizeAndMissingValuesLast() {
        String t = "sorted";
        List<MemoryRecord> records = new ArrayList<>();
        for (int seq : List.of(2, 0, 3, 1)) {
            records.add(Records.turn(t, "s", "sorted-" + seq, "user", seq, "turn " + seq, 2, new float[] {1, 0, 0}));
        }
        records.add(Records.memory(t, "sorted-memory", "no position", new float[] {0, 1, 0}));
        store.upsert(records);
        store.refresh();
        assertThat(store.find(t, Map.of(), Set.of(), 3, "position", false)).extracting(MemoryRecord::id)
                .containsExactly("sorted-3", "sorted-2", "sorted-1");
        assertThat(store.find(t, Map.of(), Set.of(), 10, "position", true)).extracting(MemoryRecord::id)
                .containsExactly("sorted-0", "sorted-1", "sorted-2", "sorted-3", "sorted-memory");
        assertThat(store.find(t, Map.of("position", List.of(1, 3)), Set.of(RecordType.TURN), 10, "position", true))
                .extracting(MemoryRecord::id).containsExactly("sorted-1", "sorted-3");
    }

    @Test
    void anIndexKeepsTheModelThatMadeItsVectorsAndRefusesAnother() {
        try (MemoryStore other = open("engram-memories-contract-model")) {
            assertThatThrownBy(other::embeddingModel).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("does not exist");
            other.ensureIndex("model-a", 3);
            other.ensureIndex("model-a", 3); // again: the same model is fine
            assertThat(other.embeddingModel()).isEqualTo("model-a");
            assertThatThrownBy(() -> other.ensureIndex("model-b", 3)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("holds vectors of embedding model model-a, not model-b");
        }
        assertThat(store.embeddingModel()).isEqualTo("test-vectors");
    }
}
