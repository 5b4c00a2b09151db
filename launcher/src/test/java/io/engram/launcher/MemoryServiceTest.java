package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.service.ApiKeys;
import io.engram.service.MemoryService;
import io.engram.service.Routes;
import io.engram.service.ServiceConfig;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RetryPolicy;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The memory service through real HTTP against the live embedded product ({@link LiveProduct}: Kafka,
 * OpenSearch, PostgreSQL, the unbounded job on a MiniCluster): writes become searchable, forgets leave nothing
 * of a memory, a session or a user anywhere while everyone else's records stay, errors are JSON, and two
 * tenants never see each other's records.
 */
class MemoryServiceTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration VISIBLE = Duration.ofSeconds(90);
    private static LiveProduct product;
    private static String acme;
    private static String globex;
    private final HttpClient http = HttpClient.newHttpClient();

    private record Answer(int status, JsonNode body, HttpResponse<String> raw) {
    }

    @BeforeAll
    static void start() throws Exception {
        Properties fast = new Properties();
        fast.setProperty("checkpoint.interval", "1s");
        product = LiveProduct.start(Optional.empty(), 0, List.of("acme", "globex"), fast, line -> { });
        acme = product.keys().get("acme");
        globex = product.keys().get("globex");
    }

    @AfterAll
    static void stop() throws Exception {
        if (product != null) {
            product.close();
        }
    }

    private Answer call(String method, String path, String key, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(product.apiUrl() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            request.header("Authorization", "Bearer " + key);
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        boolean json = response.headers().firstValue("Content-Type").orElse("").startsWith("application/json");
        return new Answer(response.statusCode(), json ? JSON.readTree(response.body()) : null, response);
    }

    private static String encode(String id) {
        return URLEncoder.encode(id, StandardCharsets.UTF_8);
    }

    private static String turns(String session, String user, String... texts) {
        ArrayNode records = JSON.createArrayNode();
        for (int i = 0; i < texts.length; i++) {
            records.addObject().put("session_id", session).put("user_id", user).put("turn_id", "t" + i).put("seq", i)
                    .put("role", i % 2 == 0 ? "user" : "assistant").put("text", texts[i]);
        }
        ObjectNode body = JSON.createObjectNode();
        body.set("records", records);
        return body.toString();
    }

    private List<String> accepted(Answer a) {
        assertThat(a.status()).as("%s", a.body()).isEqualTo(202);
        assertThat(a.body().get("rejected")).isEmpty();
        List<String> ids = new ArrayList<>();
        a.body().get("accepted").forEach(id -> ids.add(id.asText()));
        return ids;
    }

    private Set<String> searchIds(String key, String query) throws Exception {
        Answer a = call("POST", "/v1/search", key, JSON.createObjectNode().put("query", query).put("k", 50).toString());
        assertThat(a.status()).isEqualTo(200);
        Set<String> ids = new TreeSet<>();
        a.body().get("results").forEach(r -> ids.add(r.get("id").asText()));
        return ids;
    }

    private Set<String> listIds(String key, String filter) throws Exception {
        Set<String> ids = new TreeSet<>();
        String cursor = null;
        do {
            Answer a = call("GET", "/v1/memories?limit=7&" + filter + (cursor == null ? "" : "&cursor=" + cursor), key, null);
            assertThat(a.status()).as("%s", a.body()).isEqualTo(200);
            a.body().get("records").forEach(r -> ids.add(r.get("id").asText()));
            cursor = a.body().get("next_cursor").isNull() ? null : a.body().get("next_cursor").asText();
        } while (cursor != null);
        return ids;
    }

    private Set<String> contextIds(String key, String query) throws Exception {
        Answer a = call("POST", "/v1/context", key, JSON.createObjectNode().put("query", query).put("budget_tokens", 4000)
                .toString());
        assertThat(a.status()).isEqualTo(200);
        // where the time went, stage by stage: "embed;dur=5.21, search;dur=20.04, …"
        assertThat(a.raw().headers().firstValue("Server-Timing")).hasValueSatisfying(timing -> assertThat(timing)
                .matches("embed;dur=[0-9.]+, search;dur=[0-9.]+, rank;dur=[0-9.]+, rules;dur=[0-9.]+, "
                        + "neighbours;dur=[0-9.]+, assemble;dur=[0-9.]+"));
        Set<String> ids = new TreeSet<>();
        a.body().get("included").forEach(r -> ids.add(r.get("id").asText()));
        return ids;
    }

    private static void await(String what, Polling.Check check) throws Exception {
        Polling.await(what, VISIBLE, check);
    }

    private JsonNode awaitForget(String key, Answer requested) throws Exception {
        assertThat(requested.status()).as("%s", requested.body()).isEqualTo(202);
        String forgetId = requested.body().get("forget_id").asText();
        await("forget " + forgetId + " done",
                () -> call("GET", "/v1/forgets/" + forgetId, key, null).body().get("status").asText().equals("done"));
        return call("GET", "/v1/forgets/" + forgetId, key, null).body();
    }

    private Set<String> storedIds(String tenant, String field, String value) {
        try (OpenSearchMemoryStore store = new OpenSearchMemoryStore(product.pipeline().getProperty("opensearch.url"),
                product.pipeline().getProperty("opensearch.index", io.engram.store.MemoryIndexTemplate.INDEX),
                RetryPolicy.DEFAULT)) {
            store.refresh();
            Set<String> ids = new TreeSet<>();
            store.find(tenant, Map.of(field, value), Set.of(), 1000, null, true).stream().map(MemoryRecord::id)
                    .forEach(ids::add);
            return ids;
        }
    }

    /** Words only one round's facts use, so that one search finds both versions of each of them. */
    private static final String[] ROUNDS = {"quokka", "narwhal", "axolotl", "pangolin", "capybara"};
    private static final int FACTS_PER_ROUND = 10;

    private static ObjectNode factVersion(String word, int fact, int version, java.time.Instant ts) {
        ObjectNode m = JSON.createObjectNode().put("memory_id", word + "-" + fact + "-v" + version)
                .put("text", "The " + word + " note number " + fact + " now reads version " + version)
                .put("user_id", "poller").put("ts", ts.toString());
        if (fact % 2 == 0) {
            m.put("key", "poll." + word + "." + fact); // superseded by its key
        } else if (version > 1) {
            m.putArray("supersedes").add(word + "-" + fact + "-v" + (version - 1)); // superseded by name
        }
        return m;
    }

    private static String batch(List<ObjectNode> memories) {
        ObjectNode body = JSON.createObjectNode();
        memories.forEach(body.putArray("records")::add);
        return body.toString();
    }

    /** The fact versions each read returned — a search, then a context — as {@code word-fact-vN} ids. */
    private List<List<String>> versionsRead(String word) throws Exception {
        List<List<String>> answers = new ArrayList<>();
        for (Set<String> answer : List.of(searchIds(acme, word + " note number version"),
                contextIds(acme, word + " note number version"))) {
            answers.add(answer.stream().map(id -> id.substring("acme/".length())).filter(id -> id.startsWith(word + "-"))
                    .toList());
        }
        return answers;
    }

    /** The distinct fact versions the reads returned. */
    private Set<String> allRead(String word) throws Exception {
        Set<String> all = new TreeSet<>();
        versionsRead(word).forEach(all::addAll);
        return all;
    }

    /**
     * Five rounds of ten facts (50 supersessions): each fact's first version is stored, then its second is written
     * (by key for half of them, naming the first for the other half) while a reader searches and assembles contexts
     * without pause; no answer holds both versions of a fact. Then a second version is forgotten: once its forget is
     * done, no read returns it.
     */
    @Test
    void noReadHoldsTwoVersionsOfAFactNorAMemoryOnceItsForgetIsDone() throws Exception {
        java.time.Instant t0 = java.time.Instant.now().minusSeconds(600);
        List<String> bothSeen = java.util.Collections.synchronizedList(new ArrayList<>());
        for (String word : ROUNDS) {
            List<ObjectNode> first = new ArrayList<>();
            List<ObjectNode> second = new ArrayList<>();
            for (int f = 0; f < FACTS_PER_ROUND; f++) {
                first.add(factVersion(word, f, 1, t0));
                second.add(factVersion(word, f, 2, t0.plusSeconds(60)));
            }
            assertThat(accepted(call("POST", "/v1/memories", acme, batch(first)))).hasSize(FACTS_PER_ROUND);
            await("the " + word + " facts' first versions are searchable",
                    () -> versionsRead(word).stream().allMatch(answer -> answer.stream().filter(id -> id.endsWith("-v1"))
                            .count() == FACTS_PER_ROUND));

            java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.atomic.AtomicInteger polls = new java.util.concurrent.atomic.AtomicInteger();
            Thread reader = new Thread(() -> {
                while (!done.get()) {
                    try {
                        for (List<String> answer : versionsRead(word)) {
                            for (int f = 0; f < FACTS_PER_ROUND; f++) {
                                if (answer.contains(word + "-" + f + "-v1") && answer.contains(word + "-" + f + "-v2")) {
                                    bothSeen.add(word + "-" + f + " at poll " + polls.get() + ": " + answer);
                                }
                            }
                        }
                        polls.incrementAndGet();
                    } catch (Exception | AssertionError e) {
                        bothSeen.add("a read failed: " + e);
                        return;
                    }
                }
            }, "reader-" + word);
            reader.start();
            try {
                assertThat(accepted(call("POST", "/v1/memories", acme, batch(second)))).hasSize(FACTS_PER_ROUND);
                await("the " + word + " facts read at their second versions only", () -> {
                    Set<String> read = allRead(word);
                    return read.stream().filter(id -> id.endsWith("-v2")).count() == FACTS_PER_ROUND
                            && read.stream().noneMatch(id -> id.endsWith("-v1"));
                });
            } finally {
                done.set(true);
                reader.join();
            }
            assertThat(polls.get()).as("reads while the " + word + " facts changed").isPositive();
        }
        assertThat(bothSeen).as("answers holding two versions of one fact").isEmpty();

        String forgotten = ROUNDS[0] + "-3-v2";
        assertThat(allRead(ROUNDS[0])).contains(forgotten);
        awaitForget(acme, call("DELETE", "/v1/memories/" + forgotten, acme, null));
        for (int i = 0; i < 50; i++) {
            assertThat(allRead(ROUNDS[0])).as("read %d after the forget was done", i).doesNotContain(forgotten);
        }
    }

    /**
     * A memory expires and nothing is written after it: no later event moves event time past {@code expires_at}, so
     * the wall clock deletes it ({@code watermark.out-of-orderness} + {@code watermark.idleness} after it, docs/contracts.md
     * "Expiry"), with its row in {@code forgets}. Reads leave it out from {@code expires_at} on, before it is deleted.
     */
    @Test
    void aQuietTenantsExpiredMemoryLeavesTheStoreWithNoLaterInput() throws Exception {
        java.time.Instant expires = java.time.Instant.now().plusSeconds(4);
        assertThat(accepted(call("POST", "/v1/memories", globex, JSON.createObjectNode().put("memory_id", "m-badge")
                .put("text", "The visitor badge code is 4471 until noon.").put("expires_at", expires.toString())
                .toString()))).containsExactly("globex/m-badge");
        await("the expiring memory is stored", () -> call("GET", "/v1/memories/m-badge", globex, null).status() == 200);
        await("expired: reads leave it out", () -> java.time.Instant.now().isAfter(expires)
                && !searchIds(globex, "visitor badge code").contains("globex/m-badge"));
        await("deleted from the store by the wall clock",
                () -> call("GET", "/v1/memories/m-badge", globex, null).status() == 404);
        assertThat(java.time.Instant.now()).as("not before it expired").isAfter(expires);
        await("its row in forgets, saying 1 removed", () -> expiryRows("globex/m-badge").equals(List.of(1L)));
    }

    /** The records removed by each expiry row of a memory. */
    private static List<Long> expiryRows(String storeId) throws Exception {
        List<Long> removed = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(product.pipeline().getProperty("postgres.url"), "postgres", "");
             var s = c.prepareStatement("SELECT records_removed FROM forgets WHERE forget_id LIKE ?")) {
            s.setString(1, "expiry/" + storeId + "@%");
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    removed.add(rs.getLong(1));
                }
            }
        }
        return removed;
    }

    @Test
    void aWrittenMemoryIsSearchableListableAndReadable() throws Exception {
        List<String> ids = accepted(call("POST", "/v1/memories", acme,
                "{\"text\": \"The staging database password rotates every Tuesday.\"}"));
        String id = ids.get(0);
        assertThat(id).startsWith("acme/m-");
        await("the memory is searchable", () -> searchIds(acme, "when does the staging password rotate").contains(id));
        Answer one = call("GET", "/v1/memories/" + encode(id), acme, null);
        assertThat(one.status()).isEqualTo(200);
        assertThat(one.body().get("text").asText()).isEqualTo("The staging database password rotates every Tuesday.");
        assertThat(one.body().get("type").asText()).isEqualTo("memory");
        assertThat(listIds(acme, "type=memory")).contains(id);
        // the same text again is the same memory: one record
        assertThat(accepted(call("POST", "/v1/memories", acme,
                "{\"text\": \"The staging database password rotates every Tuesday.\"}"))).containsExactly(id);
        assertThat(call("GET", "/v1/memories/" + encode(id), globex, null).status()).as("another tenant's key")
                .isEqualTo(404);
    }

    @Test
    void aMemoryIsReadAndForgottenByTheIdTheCallerGaveItAndAnotherTenantsIsUntouched() throws Exception {
        assertThat(accepted(call("POST", "/v1/memories", acme, "{\"memory_id\": \"m-1\", \"text\": \"Acme's office"
                + " plant is a fern called Gerald.\"}"))).containsExactly("acme/m-1");
        assertThat(accepted(call("POST", "/v1/memories", globex, "{\"memory_id\": \"m-1\", \"text\": \"Globex's office"
                + " plant is a cactus called Spike.\"}"))).containsExactly("globex/m-1");
        await("both tenants' m-1 are stored", () -> call("GET", "/v1/memories/m-1", acme, null).status() == 200
                && call("GET", "/v1/memories/m-1", globex, null).status() == 200);
        Answer byOwnId = call("GET", "/v1/memories/m-1", acme, null);
        assertThat(byOwnId.body().get("id").asText()).isEqualTo("acme/m-1");
        assertThat(byOwnId.body().get("text").asText()).contains("fern");
        assertThat(call("GET", "/v1/memories/" + encode("acme/m-1"), acme, null).body()).isEqualTo(byOwnId.body());
        assertThat(call("GET", "/v1/memories/" + encode("globex/m-1"), acme, null).status()).isEqualTo(404);

        Answer forget = call("DELETE", "/v1/memories/m-1", acme, null);
        assertThat(forget.body().get("target").asText()).isEqualTo("acme/m-1");
        assertThat(awaitForget(acme, forget).get("records_removed").asLong()).isEqualTo(1);
        assertThat(call("GET", "/v1/memories/m-1", acme, null).status()).isEqualTo(404);
        assertThat(storedIds("acme", "type", "memory")).doesNotContain("acme/m-1");

        Answer theirs = call("GET", "/v1/memories/m-1", globex, null);
        assertThat(theirs.status()).isEqualTo(200);
        assertThat(theirs.body().get("text").asText()).contains("cactus");
        assertThat(storedIds("globex", "type", "memory")).contains("globex/m-1");
        assertThat(searchIds(globex, "office plant cactus")).contains("globex/m-1");
    }

    @Test
    void forgettingAUserLeavesNothingOfThemAndKeepsEveryoneElse() throws Exception {
        List<String> ann = new ArrayList<>(accepted(call("POST", "/v1/turns", acme, turns("ann-1", "ann",
                "Ann's daughter Lila starts violin lessons in March.", "Noted: violin lessons for Lila in March."))));
        ann.addAll(accepted(call("POST", "/v1/turns", acme, turns("ann-2", "ann",
                "Ann is allergic to hazelnuts.", "I will avoid hazelnuts in recipes for Ann."))));
        List<String> bob = accepted(call("POST", "/v1/turns", acme, turns("bob-1", "bob",
                "Bob's violin needs new strings before the March concert.")));
        List<String> otherAnn = accepted(call("POST", "/v1/turns", globex, turns("ann-1", "ann",
                "Ann at globex plays the violin in March too.")));
        await("every turn is stored", () -> storedIds("acme", "user_id", "ann").size() == 4
                && storedIds("acme", "user_id", "bob").size() == 1 && storedIds("globex", "user_id", "ann").size() == 1);
        assertThat(searchIds(acme, "violin lessons in March")).containsAll(List.of(ann.get(0), bob.get(0)));

        JsonNode done = awaitForget(acme, call("DELETE", "/v1/users/ann", acme, null));
        assertThat(done.get("scope").asText()).isEqualTo("user");
        assertThat(done.get("records_removed").asLong()).isEqualTo(4);

        assertThat(storedIds("acme", "user_id", "ann")).isEmpty();
        assertThat(storedIds("acme", "session_id", "ann-1")).isEmpty();
        assertThat(storedIds("acme", "session_id", "ann-2")).isEmpty();
        assertThat(searchIds(acme, "violin lessons in March")).doesNotContainAnyElementsOf(ann).contains(bob.get(0));
        assertThat(searchIds(acme, "hazelnut allergy")).doesNotContainAnyElementsOf(ann);
        assertThat(listIds(acme, "user_id=ann")).isEmpty();
        assertThat(contextIds(acme, "what is Ann allergic to?")).doesNotContainAnyElementsOf(ann);
        assertThat(call("GET", "/v1/memories/" + encode(ann.get(0)), acme, null).status()).isEqualTo(404);
        assertThat(storedIds("acme", "user_id", "bob")).containsExactlyElementsOf(bob);
        assertThat(storedIds("globex", "user_id", "ann")).containsExactlyElementsOf(otherAnn);
        assertThat(searchIds(globex, "violin in March")).contains(otherAnn.get(0));

        // what she says after the forget is a new memory, and kept
        List<String> later = accepted(call("POST", "/v1/turns", acme, turns("ann-3", "ann", "Ann moved to Lisbon.")));
        await("a turn after the forget is stored", () -> storedIds("acme", "user_id", "ann").equals(new TreeSet<>(later)));
    }

    @Test
    void forgettingASessionOrOneMemoryRemovesJustThat() throws Exception {
        List<String> kept = accepted(call("POST", "/v1/turns", acme, turns("trip-1", "cy",
                "Cy plans a kayak trip on the fjord.", "The kayak trip is booked for June.")));
        List<String> session = accepted(call("POST", "/v1/turns", acme, turns("trip-2", "cy",
                "Cy wants a quiet hotel near the fjord.", "I found a quiet hotel by the water.")));
        List<String> memories = accepted(call("POST", "/v1/memories", acme,
                "{\"records\": [{\"text\": \"Cy prefers window seats.\"}, {\"text\": \"Cy pays with the company card.\"}]}"));
        await("stored", () -> storedIds("acme", "user_id", "cy").size() == 4
                && searchIds(acme, "window seats").contains(memories.get(0)));

        JsonNode sessionDone = awaitForget(acme, call("DELETE", "/v1/sessions/trip-2", acme, null));
        assertThat(sessionDone.get("records_removed").asLong()).isEqualTo(2);
        assertThat(storedIds("acme", "session_id", "trip-2")).isEmpty();
        assertThat(storedIds("acme", "session_id", "trip-1")).containsExactlyInAnyOrderElementsOf(kept);

        JsonNode memoryDone = awaitForget(acme, call("DELETE", "/v1/memories/" + encode(memories.get(0)), acme, null));
        assertThat(memoryDone.get("records_removed").asLong()).isEqualTo(1);
        assertThat(call("GET", "/v1/memories/" + encode(memories.get(0)), acme, null).status()).isEqualTo(404);
        assertThat(call("GET", "/v1/memories/" + encode(memories.get(1)), acme, null).status()).isEqualTo(200);
        assertThat(searchIds(acme, "window seats")).doesNotContain(memories.get(0));

        Answer unknown = call("DELETE", "/v1/memories/" + encode("acme/no-such-memory"), acme, null);
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.body().at("/error/code").asText()).isEqualTo("not_found");
    }

    @Test
    void everyRefusalIsJsonWithItsCodeAndACrossTenantWriteIsAudited() throws Exception {
        assertThat(call("POST", "/v1/search", null, "{\"query\":\"x\"}")).satisfies(a -> {
            assertThat(a.status()).isEqualTo(401);
            assertThat(a.body().at("/error/code").asText()).isEqualTo("unauthorized");
        });
        assertThat(call("POST", "/v1/search", "not-a-key-of-anyone-at-all", "{\"query\":\"x\"}").status()).isEqualTo(401);
        Answer foreign = call("POST", "/v1/memories", acme, "{\"tenant_id\": \"globex\", \"text\": \"planted\"}");
        assertThat(foreign.status()).isEqualTo(403);
        assertThat(foreign.body().at("/error/code").asText()).isEqualTo("forbidden");
        try (Connection db = DriverManager.getConnection(product.pipeline().getProperty("postgres.url"), "postgres", "");
             Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT tenant_id, detail FROM api_audit WHERE action = 'cross_tenant'")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("acme");
            assertThat(rs.getString(2)).contains("globex");
        }
        Answer missing = call("GET", "/v1/nothing-here", acme, null);
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.body().at("/error/code").asText()).isEqualTo("not_found");
        Answer tooLarge = call("POST", "/v1/search", acme, "{\"query\":\"" + "x".repeat(MemoryService.MAX_BODY_BYTES) + "\"}");
        assertThat(tooLarge.status()).isEqualTo(413);
        assertThat(tooLarge.body().at("/error/code").asText()).isEqualTo("request_too_large");
        Answer invalid = call("POST", "/v1/turns", acme, "{\"session_id\": \"s\", \"role\": \"wizard\"}");
        assertThat(invalid.status()).isEqualTo(400);
        assertThat(invalid.body().at("/rejected/0/code").asText()).isEqualTo("schema_violation");

        // a second service on the same stack with a tiny limit: the third request of a key waits
        ServiceConfig tight = ServiceConfig.from(product.pipeline(), Map.of()).withListen("127.0.0.1", 0)
                .withRateLimit(0.01, 2);
        try (MemoryService limited = MemoryService.start(tight, ApiKeys.of(ApiKeys.keyFileLine(acme, "acme")))) {
            List<Integer> statuses = new ArrayList<>();
            HttpResponse<String> last = null;
            for (int i = 0; i < 3; i++) {
                last = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + limited.port() + "/v1/memories?limit=1"))
                        .header("X-Api-Key", acme).build(), HttpResponse.BodyHandlers.ofString());
                statuses.add(last.statusCode());
            }
            assertThat(statuses).containsExactly(200, 200, 429);
            assertThat(Long.parseLong(last.headers().firstValue("Retry-After").orElseThrow())).isPositive();
            assertThat(JSON.readTree(last.body()).at("/error/code").asText()).isEqualTo("rate_limited");
        }
    }

    @Test
    void twoTenantsWritingAndReadingAtRandomNeverSeeEachOther() throws Exception {
        Random random = new Random(19);
        String[] words = {"invoice", "violin", "fjord", "hazelnut", "deploy", "garden", "lantern", "orbit"};
        Map<String, String> keys = Map.of("acme", acme, "globex", globex);
        Set<String> written = new HashSet<>();
        for (int i = 0; i < 24; i++) {
            String tenant = random.nextBoolean() ? "acme" : "globex";
            String text = "Shared note " + i + ": " + words[random.nextInt(words.length)] + " and "
                    + words[random.nextInt(words.length)] + ".";
            written.addAll(accepted(call("POST", "/v1/memories", keys.get(tenant),
                    JSON.createObjectNode().put("text", text).toString())));
        }
        await("every note is stored", () -> written.stream().allMatch(id -> {
            String tenant = id.substring(0, id.indexOf('/'));
            return storedIds(tenant, "type", "memory").contains(id);
        }));
        int reads = 0;
        for (int i = 0; i < 30; i++) {
            String tenant = random.nextBoolean() ? "acme" : "globex";
            String query = "shared note " + words[random.nextInt(words.length)];
            Set<String> seen = new HashSet<>(searchIds(keys.get(tenant), query));
            seen.addAll(contextIds(keys.get(tenant), query));
            seen.addAll(listIds(keys.get(tenant), "type=memory"));
            assertThat(seen).as("what %s reads", tenant).allMatch(id -> id.startsWith(tenant + "/"));
            reads += seen.size();
        }
        assertThat(reads).as("the reads returned records at all").isGreaterThan(30);
    }

    @Test
    void theOperationsEndpointsAnswerAndTheOpenApiDocumentListsEveryRoute() throws Exception {
        Answer ready = call("GET", "/readyz", null, null);
        assertThat(ready.status()).as("%s", ready.body()).isEqualTo(200);
        assertThat(ready.body().get("checks").toString()).doesNotContain("unavailable");
        assertThat(call("GET", "/healthz", null, null).status()).isEqualTo(200);
        call("GET", "/v1/memories?limit=1", acme, null);
        Answer metrics = call("GET", "/metrics", null, null);
        assertThat(metrics.raw().body()).contains("engram_service_requests_total{route=\"GET /v1/memories\",status=\"200\"}")
                .contains("engram_service_request_seconds_bucket{route=\"GET /v1/memories\",le=\"+Inf\"}");

        JsonNode spec = call("GET", "/openapi.json", null, null).body();
        Set<String> documented = new TreeSet<>();
        spec.get("paths").properties().forEach(path -> path.getValue().properties()
                .forEach(method -> documented.add(method.getKey().toUpperCase() + " " + path.getKey())));
        Set<String> served = new TreeSet<>();
        Routes.ALL.forEach(r -> served.add(r.toString()));
        assertThat(documented).isEqualTo(served);
        for (String route : documented) { // each documented route is one the server answers, not an unknown path
            String[] methodAndPath = route.split(" ", 2);
            String path = methodAndPath[1].replaceAll("\\{[a-z_]+}", "probe");
            Answer a = call(methodAndPath[0], path, acme, methodAndPath[0].equals("POST") ? "{}" : null);
            assertThat(a.body() == null || !a.body().at("/error/message").asText().startsWith("no such endpoint"))
                    .as(route).isTrue();
        }
    }

    private static String exported(String memoryId, String text, String ts, String supersedes) {
        ObjectNode m = JSON.createObjectNode().put("schema", "memory.v1").put("tenant_id", "old").put("memory_id", memoryId)
                .put("type", "memory").put("op", "upsert").put("text", text).put("user_id", "ivy").put("ts", ts);
        if (supersedes != null) {
            m.putArray("supersedes").add(supersedes);
        }
        return m.toString();
    }

    @Test
    void anExportImportedTwiceIsStoredOnceUnderTheKeysTenantWithItsSupersessionKept() throws Exception {
        String export = String.join("\n",
                exported("imp-city-1", "Ivy the importer lives in Paris.", "2025-01-01T00:00:00Z", null),
                exported("imp-city-2", "Ivy the importer lives in Lyon.", "2025-01-02T00:00:00Z", "old/imp-city-1"),
                exported("imp-tea", "Ivy the importer drinks green tea.", "2025-01-03T00:00:00Z", null),
                "{\"schema\":\"derived.v1\",\"tenant_id\":\"old\"}");
        for (int i = 0; i < 2; i++) {
            Answer imported = call("POST", "/v1/import", acme, export);
            assertThat(imported.status()).as("%s", imported.body()).isEqualTo(200);
            assertThat(imported.body().get("accepted").toString()).isEqualTo("{\"memory.v1\":3}");
            assertThat(imported.body().get("skipped").asLong()).isEqualTo(1);
            assertThat(imported.body().get("rejected")).isEmpty();
        }
        await("the older city superseded by the newer", () -> call("GET", "/v1/memories/imp-city-1", acme, null)
                .body().path("superseded_by").toString().contains("acme/imp-city-2"));
        await("the imported memories stored", () -> call("GET", "/v1/memories/imp-tea", acme, null).status() == 200);
        assertThat(storedIds("acme", "user_id", "ivy")).as("twice imported, once stored")
                .containsExactly("acme/imp-city-1", "acme/imp-city-2", "acme/imp-tea");
        assertThat(storedIds("old", "user_id", "ivy")).as("nothing of the export's tenant").isEmpty();
    }

    /**
     * The job's change feed reaches a tenant's webhook: a memory written and forgotten through the API arrives as
     * {@code upserted} then {@code forgotten}, signed with the webhook's secret, the forget without the text.
     */
    @Test
    void aWebhookReceivesTheJobsChangesSignedAndInOrder() throws Exception {
        List<String[]> received = java.util.Collections.synchronizedList(new ArrayList<>());
        com.sun.net.httpserver.HttpServer receiver = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hook", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            received.add(new String[] {exchange.getRequestHeaders().getFirst("Engram-Timestamp"),
                    exchange.getRequestHeaders().getFirst("Engram-Signature"), new String(body, StandardCharsets.UTF_8)});
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        receiver.start();
        String admin = product.keys().get(ApiKeys.ADMIN_GRANT);
        String webhook = null;
        try {
            HttpRequest register = HttpRequest.newBuilder(URI.create(product.apiUrl() + "/v1/webhooks"))
                    .header("Authorization", "Bearer " + admin).header("X-Engram-Tenant", "globex")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"url\": \"http://127.0.0.1:" + receiver.getAddress().getPort()
                            + "/hook\", \"kinds\": [\"upserted\", \"forgotten\"]}")).build();
            HttpResponse<String> made = http.send(register, HttpResponse.BodyHandlers.ofString());
            assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
            String secret = JSON.readTree(made.body()).get("secret").asText();
            webhook = JSON.readTree(made.body()).get("id").asText();

            assertThat(accepted(call("POST", "/v1/memories", globex, "{\"memory_id\": \"hooked\", \"text\": "
                    + "\"Globex's vault code is 4471.\"}"))).containsExactly("globex/hooked");
            await("the memory stored", () -> call("GET", "/v1/memories/hooked", globex, null).status() == 200);
            awaitForget(globex, call("DELETE", "/v1/memories/hooked", globex, null));
            await("both changes delivered", () -> received.stream().filter(r -> r[2].contains("globex/hooked")).count() >= 2);

            List<JsonNode> changes = new ArrayList<>();
            for (String[] r : received) {
                javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
                mac.init(new javax.crypto.spec.SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
                String expected = "v1=" + java.util.HexFormat.of().formatHex(mac.doFinal((r[0] + "." + r[2])
                        .getBytes(StandardCharsets.UTF_8)));
                assertThat(r[1]).as("signed with the webhook's secret").isEqualTo(expected);
                changes.add(JSON.readTree(r[2]));
            }
            List<JsonNode> ours = changes.stream().filter(c -> c.toString().contains("globex/hooked")).toList();
            assertThat(ours).extracting(c -> c.get("kind").asText()).containsExactly("upserted", "forgotten");
            assertThat(ours.get(0).at("/record/text").asText()).isEqualTo("Globex's vault code is 4471.");
            assertThat(ours.get(1).toString()).as("a forget carries no text").doesNotContain("4471");
            assertThat(changes).allMatch(c -> c.get("tenant_id").asText().equals("globex"));
        } finally {
            receiver.stop(0);
            if (webhook != null) { // the tenant's changes go nowhere after this test
                http.send(HttpRequest.newBuilder(URI.create(product.apiUrl() + "/v1/webhooks/" + webhook))
                        .header("Authorization", "Bearer " + admin).header("X-Engram-Tenant", "globex").DELETE().build(),
                        HttpResponse.BodyHandlers.discarding());
            }
        }
    }
}
