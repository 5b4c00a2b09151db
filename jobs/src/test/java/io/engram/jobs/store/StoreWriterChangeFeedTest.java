package io.engram.jobs.store;

import static io.engram.jobs.store.StoreWriterOperatorTest.time;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.engram.client.PayloadValidator;
import io.engram.jobs.changes.ChangeMessages;
import io.engram.jobs.ingest.ForgetEvent;
import io.engram.model.facts.FactPolicy;
import io.engram.model.retrieval.ForgetScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.model.retrieval.RecordType;
import io.engram.store.InMemoryMemoryStore;
import io.engram.store.RecordIds;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * What the writer tells the change feed (docs/schemas/change.v1.json): every change the store took, each message
 * valid against the published schema, nothing for what it never stored, and no text once a record is forgotten.
 */
class StoreWriterChangeFeedTest {

    private static final String T = "feed";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Schema CHANGE_V1 = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
            .getSchema(PayloadValidator.schemaText("change.v1"));

    private KeyedOneInputStreamOperatorTestHarness<String, StoreChange, StoreChange> harness() throws Exception {
        var h = new KeyedOneInputStreamOperatorTestHarness<>(new StoreWriterOperator(
                InMemoryMemoryStore.at(StoreWriterOperatorTest.newIndex()),
                StoreWriterOperatorTest.SETTINGS.withFacts(FactPolicy.DEFAULT), StoreWriterOperatorTest.NOON),
                StoreChange::tenantId, Types.STRING);
        h.setStateBackend(new EmbeddedRocksDBStateBackend());
        h.setup(StoreChangeSerializer.INSTANCE);
        h.open();
        return h;
    }

    private static MemoryRecord.Builder memory(String id, String hhmm) {
        return MemoryRecord.of(RecordIds.memory(T, id), T, RecordType.MEMORY, "memory " + id,
                Instant.ofEpochMilli(time(hhmm))).embedding(new float[] {1, 0, 0}).tokens(2);
    }

    private static MemoryRecord turn(String session, String turnId, String user, String hhmm) {
        return MemoryRecord.of(RecordIds.turn(T, session, turnId), T, RecordType.TURN, "turn " + turnId + " of " + user,
                Instant.ofEpochMilli(time(hhmm))).session(session).user(user).role("user")
                .embedding(new float[] {0, 1, 0}).tokens(3).build();
    }

    private static void send(KeyedOneInputStreamOperatorTestHarness<String, StoreChange, StoreChange> h,
                             StoreChange change) throws Exception {
        h.processElement(new StreamRecord<>(change, change.tsMillis()));
    }

    private static void write(KeyedOneInputStreamOperatorTestHarness<String, StoreChange, StoreChange> h,
                              MemoryRecord r) throws Exception {
        send(h, new StoreChange.Upsert(r, null));
    }

    /** The messages published so far, each checked against change.v1. */
    private static List<JsonNode> feed(KeyedOneInputStreamOperatorTestHarness<String, StoreChange, StoreChange> h) {
        var published = h.getSideOutput(StoreWriterOperator.CHANGES);
        return published == null ? List.of() : published.stream().map(r -> {
            byte[] message = ChangeMessages.json(r.getValue());
            try {
                JsonNode node = JSON.readTree(message);
                assertThat(CHANGE_V1.validate(node)).as(node.toString()).isEmpty();
                return node;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }).toList();
    }

    private static List<String> summary(List<JsonNode> feed) {
        return feed.stream().map(c -> c.path("kind").asText() + " " + (c.has("record") ? c.at("/record/id").asText()
                : c.has("record_id") ? c.path("record_id").asText()
                        + (c.has("superseded_by") ? " by " + c.path("superseded_by").asText() : "")
                : c.has("forget") ? c.at("/forget/scope").asText() + ":" + c.at("/forget/target").asText()
                : c.at("/document/path").asText() + "@" + c.at("/document/version").asText())).toList();
    }

    @Test
    void whatGatewaysWroteAndWhatTheJobDerivedIsToldButNotItsBookkeeping() throws Exception {
        try (var h = harness()) {
            write(h, turn("s1", "t1", "ann", "09:00"));
            write(h, MemoryRecord.of("win-1", T, RecordType.WINDOW, "a window", Instant.ofEpochMilli(time("09:00")))
                    .session("s1").embedding(new float[] {0, 0, 1}).tokens(2).build());
            write(h, MemoryRecord.of(RecordIds.chunk(T, "coder", "AGENTS.md", 3, 0), T, RecordType.INVARIANT,
                    "Always run the tests.", Instant.ofEpochMilli(time("09:01"))).tier(1)
                    .document("coder", "AGENTS.md", 3L).position(0).embedding(new float[] {1, 1, 0}).tokens(5).build());
            send(h, new StoreChange.DocumentVersion(T, "coder", "AGENTS.md", 3, false, 1, time("09:01")));
            write(h, memory("m1", "09:02").user("ann").key("user.city").validity(Instant.ofEpochMilli(time("09:00")),
                    null).build());
            send(h, new StoreChange.Delete(T, RecordIds.memory(T, "m1"), RecordType.MEMORY, null, time("09:03"), null));
            List<JsonNode> feed = feed(h);
            assertThat(summary(feed)).containsExactly("upserted " + RecordIds.turn(T, "s1", "t1"),
                    "document_accepted AGENTS.md@3", "upserted " + RecordIds.memory(T, "m1"),
                    "deleted " + RecordIds.memory(T, "m1"));
            JsonNode turn = feed.get(0).path("record");
            assertThat(turn.path("turn_id").asText()).isEqualTo("t1");
            assertThat(turn.path("session_id").asText()).isEqualTo("s1");
            assertThat(turn.path("derived").asBoolean()).isFalse();
            JsonNode memory = feed.get(2).path("record");
            assertThat(memory.path("memory_id").asText()).isEqualTo("m1");
            assertThat(memory.path("key").asText()).isEqualTo("user.city");
            assertThat(memory.path("valid_from").asText()).isEqualTo(Instant.ofEpochMilli(time("09:00")).toString());
            assertThat(memory.has("embedding")).isFalse();
        }
    }

    @Test
    void aSupersededMemoryIsToldOnlyWhenItIsStored() throws Exception {
        try (var h = harness()) {
            write(h, memory("m1", "09:00").user("ann").key("user.city").build());
            write(h, memory("m2", "09:10").user("ann").key("user.city").build());
            // m3 names a memory never written: the store leaves it absent, and the feed says nothing of it
            write(h, memory("m3", "09:20").supersedes(List.of(RecordIds.memory(T, "ghost"))).build());
            assertThat(summary(feed(h))).containsExactly("upserted " + RecordIds.memory(T, "m1"),
                    "upserted " + RecordIds.memory(T, "m2"),
                    "superseded " + RecordIds.memory(T, "m1") + " by " + RecordIds.memory(T, "m2"),
                    "upserted " + RecordIds.memory(T, "m3"));
        }
    }

    @Test
    void aForgetIsToldWithoutTextAndWhatItCoversNeverComesAfterIt() throws Exception {
        try (var h = harness()) {
            write(h, turn("s1", "t1", "ann", "09:00"));
            write(h, turn("s2", "t1", "bob", "09:00"));
            send(h, StoreChange.Forget.of(new ForgetEvent(T, "f-ann", ForgetScope.USER, "ann", time("09:05"))));
            write(h, turn("s1", "t2", "ann", "09:01")); // late, from another partition: covered by the forget
            write(h, memory("soon", "09:06").expiresAt(Instant.ofEpochMilli(time("09:30"))).build());
            h.processWatermark(time("09:31"));
            List<JsonNode> feed = feed(h);
            assertThat(summary(feed)).containsExactly("upserted " + RecordIds.turn(T, "s1", "t1"),
                    "upserted " + RecordIds.turn(T, "s2", "t1"), "forgotten user:ann",
                    "upserted " + RecordIds.memory(T, "soon"), "expired " + RecordIds.memory(T, "soon"));
            assertThat(feed.get(2).path("forget").path("forget_id").asText()).isEqualTo("f-ann");
            assertThat(feed.subList(2, feed.size()).toString()).as("nothing of ann's after her forget")
                    .doesNotContain("of ann");
        }
    }

    @Test
    void aChangesIdNamesItsContent() throws Exception {
        MemoryRecord m = memory("m1", "09:00").build();
        String first = JSON.readTree(ChangeMessages.json(new StoreChange.Upsert(m, null))).path("change_id").asText();
        String again = JSON.readTree(ChangeMessages.json(new StoreChange.Upsert(m, "cycle-9"))).path("change_id").asText();
        MemoryRecord moved = MemoryRecord.of(m.id(), T, RecordType.MEMORY, "moved", m.ts()).tokens(1).build();
        String edited = JSON.readTree(ChangeMessages.json(new StoreChange.Upsert(moved, null))).path("change_id").asText();
        assertThat(first).matches("[0-9a-f]{32}").isEqualTo(again).isNotEqualTo(edited);
    }
}
