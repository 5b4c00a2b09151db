package io.engram.jobs.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import io.engram.client.EngramProducer;
import io.engram.client.MalformedCorpus;
import io.engram.client.Payload;
import io.engram.client.Topics;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RecordIds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The end-to-end input of three tenants and how a run's output is read back for comparison; shared by the
 * MiniCluster runs here and the standalone-cluster runs of the launcher. {@link #produce} sends documents
 * (real agent documents, two versions, one over its rule budget), conversation turns and gateway memories,
 * interleaved with several hundred malformed records, and remembers what is live and which records are bad.
 */
public final class EndToEndInput {

    public static final Instant T0 = Instant.parse("2026-11-02T09:00:00Z");
    public static final String ACME = "e2e-acme";
    public static final String GLOBEX = "e2e-globex";
    public static final String INITECH = "e2e-initech";
    /** Two users' short sessions (no compaction, no cycles), one user forgotten after both have spoken. */
    public static final String HOOLI = "e2e-hooli";
    /** Memories that supersede one another and expire (docs/algorithms.md, "Supersession, validity and expiry"). */
    public static final String UMBRELLA = "e2e-umbrella";
    /**
     * Deleted whole (a forget of scope tenant) after it wrote a document and a conversation under the ids acme
     * uses: nothing of it stays, and acme keeps all of its own. It writes no memories, so no cycles of its own.
     */
    public static final String VANDELAY = "e2e-vandelay";
    public static final List<String> TENANTS = List.of(ACME, GLOBEX, INITECH, HOOLI, UMBRELLA, VANDELAY);
    /** When hooli's user "gone" asks to be forgotten. */
    public static final Instant FORGOTTEN_AT = T0.plusSeconds(900);
    /**
     * When vandelay is deleted, and the query its deletion searches and deletes by: the tenant's filter alone
     * (docs/contracts.md, "Forgetting").
     */
    public static final Instant DELETED_AT = T0.plusSeconds(1500);
    public static final String DELETION_BODY = "{\"query\":{\"bool\":{\"filter\":[{\"term\":{\"tenant_id\":\""
            + VANDELAY + "\"}}]}},\"size\"";
    /** The real agent documents of data/agents-md, which the build passes in (pom.xml's surefire settings). */
    static final Path AGENT_DOCUMENTS = Path.of(Objects.requireNonNull(System.getProperty("engram.agent-documents"),
            "system property engram.agent-documents (set by the build) names data/agents-md"));

    /** What each tenant's live documents are: tenant → (agent/path → content), for the expected chunk ids. */
    final Map<String, Map<String, String>> liveDocuments = new HashMap<>();
    final Map<String, Long> liveVersions = new HashMap<>();
    /** Source coordinates (topic/partition/offset) of every bad record, and of every valid one. */
    final Map<String, MalformedCorpus.Bad> badByCoordinates = new HashMap<>();
    final Set<String> validCoordinates = new HashSet<>();

    private EndToEndInput() {
    }

    /** The text of one real agent document of data/agents-md, by its file name. */
    public static String agentDocument(String fileName) throws java.io.IOException {
        return Files.readString(AGENT_DOCUMENTS.resolve(fileName));
    }

    /** Produces the input to the embedded broker and returns what was sent. */
    public static EndToEndInput produce(EmbeddedKafka kafka) throws Exception {
        EndToEndInput input = new EndToEndInput();
        input.send(kafka);
        return input;
    }

    private void send(EmbeddedKafka kafka) throws Exception {
        String flinkAgents = agentDocument("apache+flink-agents__AGENTS.md");
        String graphiti = agentDocument("getzep+graphiti__AGENTS.md");
        String soul = agentDocument("openclaw+openclaw__templates__SOUL.md");
        List<MalformedCorpus.Bad> bad = MalformedCorpus.generate(ACME, T0);
        Properties raw = new Properties();
        raw.put("bootstrap.servers", kafka.bootstrapServers());
        raw.put("max.request.size", String.valueOf(Topics.LARGE_RECORD_BYTES));
        try (EngramProducer producer = new EngramProducer(kafka.bootstrapServers());
             KafkaProducer<String, byte[]> rawProducer = new KafkaProducer<>(raw, new StringSerializer(), new ByteArraySerializer())) {
            List<Payload> valid = new ArrayList<>();
            // documents: acme's AGENTS.md in two versions (v2 replaces v1), globex one, initech one plus a v2
            // whose hard rules overflow the budget (rejected: v1 stays live)
            valid.add(Payload.doc(ACME, "coder", "AGENTS.md", "core", 1, flinkAgents, T0));
            valid.add(Payload.doc(GLOBEX, "helper", "AGENTS.md", "standard", 1, graphiti, T0.plusSeconds(1)));
            valid.add(Payload.doc(INITECH, "persona", "SOUL.md", "core", 1, soul, T0.plusSeconds(2)));
            String acmeV2 = flinkAgents + "\n- You must never push directly to the main branch.\n";
            valid.add(Payload.doc(ACME, "coder", "AGENTS.md", "core", 2, acmeV2, T0.plusSeconds(600)));
            live(ACME, "coder", "AGENTS.md", acmeV2, 2);
            live(GLOBEX, "helper", "AGENTS.md", graphiti, 1);
            live(INITECH, "persona", "SOUL.md", soul, 1);
            // conversations: one session each for acme and globex, 40 turns a minute apart
            for (String tenant : List.of(ACME, GLOBEX)) {
                for (int seq = 0; seq < 40; seq++) {
                    valid.add(Payload.turn(tenant, "s1", "u1", "t" + seq, seq, seq % 2 == 0 ? "user" : "assistant",
                            turnText(tenant, seq), T0.plusSeconds(60L * seq + 5)));
                }
            }
            // gateway memories of initech in two cycles, one deleted again
            String[] memories = {"The customer prefers invoices in euros", "Quarterly reports are due on the fifth",
                    "The staging database is restored every Sunday night", "Escalate outages to the on-call lead",
                    "Staplers are ordered from the Swingline catalogue"};
            for (int i = 0; i < memories.length; i++) {
                valid.add(Payload.memory(INITECH, "mem-" + i, i % 2 == 0 ? "memory" : "knowledge", memories[i], List.of(),
                        0, "c0", T0.plusSeconds(30L * i)));
            }
            valid.add(Payload.memory(INITECH, "mem-5", "lesson", "Back up the staging database before the Sunday restore",
                    List.of("mem-2"), 1, "c1", T0.plusSeconds(1200)));
            valid.add(Payload.memoryDeleted(INITECH, "mem-4", "memory", "c1", T0.plusSeconds(1230)));
            // hooli: users "keep" and "gone" speak in sessions of their own; then "gone" is forgotten
            for (int seq = 0; seq < 5; seq++) {
                valid.add(Payload.turn(HOOLI, "h-keep", "keep", "t" + seq, seq, seq % 2 == 0 ? "user" : "assistant",
                        turnText(HOOLI, seq), T0.plusSeconds(60L * seq + 7)));
                valid.add(Payload.turn(HOOLI, "h-gone", "gone", "t" + seq, seq, seq % 2 == 0 ? "user" : "assistant",
                        turnText(HOOLI, seq), T0.plusSeconds(60L * seq + 8)));
            }
            valid.add(Payload.forget(HOOLI, "forget-gone", "user", "gone", FORGOTTEN_AT));
            // vandelay: its rules and four turns of a session s1 of a user u1 (a window of three), then its deletion
            valid.add(Payload.doc(VANDELAY, "coder", "AGENTS.md", "core", 1, "# Rules\n\n- Always import latex before noon."
                    + "\n- Never export on Sundays.\n\nVandelay imports latex and exports chips.\n", T0.plusSeconds(3)));
            for (int seq = 0; seq < 4; seq++) {
                valid.add(Payload.turn(VANDELAY, "s1", "u1", "t" + seq, seq, seq % 2 == 0 ? "user" : "assistant",
                        turnText(VANDELAY, seq), T0.plusSeconds(60L * seq + 9)));
            }
            valid.add(Payload.forget(VANDELAY, "forget-vandelay", "tenant", VANDELAY, DELETED_AT));
            valid.addAll(facts());

            Map<String, MalformedCorpus.Bad> pendingBad = new HashMap<>();
            List<java.util.concurrent.Future<RecordMetadata>> badSends = new ArrayList<>();
            List<MalformedCorpus.Bad> ordered = new ArrayList<>(bad);
            Payload everything = Payload.forget(HOOLI, "forget-all", "user", "keep", T0.plusSeconds(5));
            everything.json().put("scope", "everything"); // not a scope: rejected, "keep" stays
            ordered.add(new MalformedCorpus.Bad(Topics.FORGETS, everything.key(), everything.bytes(),
                    io.engram.client.RejectReason.SCHEMA_VIOLATION, true));
            Payload anotherTenant = Payload.forget(HOOLI, "forget-acme", "tenant", ACME, T0.plusSeconds(5));
            ordered.add(new MalformedCorpus.Bad(Topics.FORGETS, anotherTenant.key(), anotherTenant.bytes(),
                    io.engram.client.RejectReason.SCHEMA_VIOLATION, false)); // a deletion of acme sent as hooli: refused

            int b = 0;
            List<java.util.concurrent.Future<RecordMetadata>> validSends = new ArrayList<>();
            for (Payload p : valid) { // interleave: after every valid record, a few bad ones
                validSends.add(producer.send(p));
                for (int k = 0; k < 4 && b < ordered.size(); k++, b++) {
                    MalformedCorpus.Bad x = ordered.get(b);
                    badSends.add(rawProducer.send(new ProducerRecord<>(x.topic(), x.key(), x.value())));
                    pendingBad.put(String.valueOf(badSends.size() - 1), x);
                }
            }
            for (; b < ordered.size(); b++) {
                MalformedCorpus.Bad x = ordered.get(b);
                badSends.add(rawProducer.send(new ProducerRecord<>(x.topic(), x.key(), x.value())));
                pendingBad.put(String.valueOf(badSends.size() - 1), x);
            }
            producer.flush();
            rawProducer.flush();
            for (var sent : validSends) {
                RecordMetadata m = sent.get();
                validCoordinates.add(m.topic() + "/" + m.partition() + "/" + m.offset());
            }
            for (int i = 0; i < badSends.size(); i++) {
                RecordMetadata m = badSends.get(i).get();
                badByCoordinates.put(m.topic() + "/" + m.partition() + "/" + m.offset(), pendingBad.get(String.valueOf(i)));
            }
        }
    }

    /**
     * Umbrella's memories: Ann's city four times (the Lisbon one arriving after the newer Rome one), Bob's city under
     * the same key, an explicit supersede of what the key already superseded, a cycle of two, a memory that expires,
     * and a forgotten memory superseded after its forget.
     */
    private static List<Payload> facts() {
        List<Payload> facts = new ArrayList<>();
        String[][] cities = {{"u1", "Paris", "10"}, {"u2", "Berlin", "300"}, {"u4", "Rome", "900"}, {"u3", "Lisbon", "600"}};
        for (String[] c : cities) {
            facts.add(fact(c[0], "Ann lives in " + c[1], Long.parseLong(c[2]), "ann", "user.city"));
        }
        facts.add(fact("b1", "Bob lives in Oslo", 320, "bob", "user.city"));
        facts.add(fact("u5", "Ann moved away from Paris", 400, null, null, "u1"));
        facts.add(fact("c1", "The team meets on Mondays", 500, null, null, "c2"));
        facts.add(fact("c2", "The team meets on Tuesdays", 510, null, null, "c1"));
        Payload expiring = fact("e1", "Ann's trial licence is active", 520, null, null);
        expiring.json().put("expires_at", T0.plusSeconds(1000).toString());
        facts.add(expiring);
        facts.add(fact("f1", "Ann's old phone number is 555-0100", 530, null, null));
        facts.add(Payload.forget(UMBRELLA, "forget-f1", "memory", RecordIds.memory(UMBRELLA, "f1"), T0.plusSeconds(540)));
        facts.add(fact("f2", "Ann's phone number is 555-0199", 550, null, null, "f1"));
        return facts;
    }

    private static Payload fact(String id, String text, long second, String user, String key, String... supersedes) {
        Payload p = Payload.memory(UMBRELLA, id, "memory", text, List.of(), 0, null, T0.plusSeconds(second));
        if (user != null) {
            p.json().put("user_id", user).put("key", key);
        }
        if (supersedes.length > 0) {
            ArrayNode ids = p.json().putArray("supersedes");
            List.of(supersedes).forEach(ids::add);
        }
        return p;
    }

    private void live(String tenant, String agent, String path, String content, long version) {
        liveDocuments.computeIfAbsent(tenant, t -> new HashMap<>()).put(agent + "/" + path, content);
        liveVersions.put(tenant + "/" + agent + "/" + path, version);
    }

    public static String turnText(String tenant, int seq) {
        String[] topics = {"the quarterly budget review", "migrating the billing service", "hiring a data engineer",
                "the office move to the harbour building", "renewing the cloud contract"};
        return (seq % 2 == 0 ? "Can you help me with " : "Here is what I suggest for ") + topics[(seq / 2) % topics.length]
                + " (" + tenant + " note " + seq + "), keeping the deadline on Friday in mind.";
    }

    /** The snapshot's key of a tenant's entity graph, one line per entity: name, records, the names beside it. */
    public static final String ENTITIES_OF = "entities of ";

    /**
     * Per tenant, one line per OpenSearch document (id, type, tier, generation, version, refs, text); under {@link
     * #ENTITIES_OF} and the tenant, one per entity of its graph.
     */
    public static Map<String, List<String>> snapshot(OpenSearchMemoryStore store) {
        return snapshot(store, TENANTS);
    }

    /** The same for any tenants. */
    public static Map<String, List<String>> snapshot(OpenSearchMemoryStore store, List<String> tenants) {
        store.refresh();
        Map<String, List<String>> out = new TreeMap<>();
        for (String tenant : tenants) {
            out.put(tenant, store.find(tenant, Map.of(), Set.of(), 10_000, null, true).stream()
                    .map(r -> String.join("|", r.id(), r.type().label(), String.valueOf(r.tier()),
                            String.valueOf(r.generation()), String.valueOf(r.docVersion()),
                            String.valueOf(new java.util.TreeSet<>(r.sourceRefs())), r.text()) + facts(r)
                            + (r.sourcesFrom() == null ? "" : "|from " + r.sourcesFrom() + " to " + r.ts()))
                    .sorted().toList());
            out.put(ENTITIES_OF + tenant, store.entities(tenant, Map.of(), 10_000, 50, 0).stream().map(e -> "entity|" + e.name()
                    + "|" + e.records() + "|" + e.coMentions().stream().map(c -> c.name() + "=" + c.records()).toList()).toList());
        }
        return out;
    }

    /** A memory's facts for its snapshot line: key, what supersedes it and from when; nothing for a record without. */
    private static String facts(MemoryRecord r) {
        return r.key() == null && r.supersededBy() == null && r.supersedes().isEmpty() ? ""
                : "|" + r.key() + "|" + r.supersedes() + "|" + r.supersededBy() + "@" + r.supersededAt();
    }

    /** The end-to-end tenants' rows of the three tables, one line each. */
    public static Map<String, List<String>> rows(EmbeddedPostgreSql postgres) throws Exception {
        return read(postgres, TENANTS, false);
    }

    /** The end-to-end tenants' rows, one line each, deleted once read so the next run starts without them. */
    public static Map<String, List<String>> takeRows(EmbeddedPostgreSql postgres) throws Exception {
        return read(postgres, TENANTS, true);
    }

    /** {@link #takeRows} for any tenants. */
    public static Map<String, List<String>> takeRows(EmbeddedPostgreSql postgres, List<String> of) throws Exception {
        return read(postgres, of, true);
    }

    private static Map<String, List<String>> read(EmbeddedPostgreSql postgres, List<String> of, boolean delete)
            throws Exception {
        try (Connection c = postgres.connect()) {
            return read(c, of, delete);
        }
    }

    /** The tenants' rows of the three tables, one line each, over a connection of the caller's. */
    public static Map<String, List<String>> rows(Connection c, List<String> of) throws Exception {
        return read(c, of, false);
    }

    private static Map<String, List<String>> read(Connection c, List<String> of, boolean delete) throws Exception {
        Map<String, List<String>> out = new TreeMap<>();
        String tenants = of.stream().map(t -> "'" + t + "'").collect(Collectors.joining(","));
        try (Statement s = c.createStatement()) {
            for (String table : List.of("cycle_metrics", "collapse_alerts", "canary_queries")) {
                List<String> lines = new ArrayList<>();
                try (var rs = s.executeQuery("SELECT * FROM " + table + " WHERE tenant_id IN (" + tenants + ")")) {
                    while (rs.next()) {
                        List<String> cells = new ArrayList<>();
                        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                            cells.add(String.valueOf(rs.getObject(i)));
                        }
                        lines.add(String.join("|", cells));
                    }
                }
                lines.sort(null);
                out.put(table, lines);
                if (delete) {
                    s.executeUpdate("DELETE FROM " + table + " WHERE tenant_id IN (" + tenants + ")");
                }
            }
        }
        return out;
    }

    /**
     * A tenant's rows of {@code forgets}, {@code forget_id|scope|target|completed|records_removed} ("completed" when
     * {@code completed_at} is set: it is the wall clock's), deleted once read so the next run's rows are its own.
     */
    public static List<String> takeForgets(EmbeddedPostgreSql postgres, String tenant) throws Exception {
        List<String> lines = new ArrayList<>();
        try (Connection c = postgres.connect();
             var read = c.prepareStatement("SELECT forget_id, scope, target, completed_at, records_removed FROM forgets"
                     + " WHERE tenant_id = ? ORDER BY forget_id");
             var delete = c.prepareStatement("DELETE FROM forgets WHERE tenant_id = ?")) {
            read.setString(1, tenant);
            try (var rs = read.executeQuery()) {
                while (rs.next()) {
                    lines.add(String.join("|", rs.getString(1), rs.getString(2), rs.getString(3),
                            rs.getTimestamp(4) == null ? "pending" : "completed", String.valueOf(rs.getObject(5))));
                }
            }
            delete.setString(1, tenant);
            delete.executeUpdate();
        }
        return lines;
    }

    /** Equal maps, failing with the lines missing or extra per key rather than two whole maps. */
    public static void assertSame(Map<String, List<String>> actual, Map<String, List<String>> expected) {
        assertThat(actual.keySet()).isEqualTo(expected.keySet());
        for (String key : expected.keySet()) {
            assertThat(actual.get(key)).as(key).containsExactlyElementsOf(expected.get(key));
        }
    }
}
