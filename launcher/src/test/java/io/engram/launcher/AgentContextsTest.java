package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.client.KafkaClients;
import io.engram.client.TopicReader;
import io.engram.client.Topics;
import io.engram.jobs.PipelineConfig;
import io.engram.model.retrieval.AgentScope;
import io.engram.model.retrieval.MemoryRecord;
import io.engram.retrieval.Retrieval;
import io.engram.store.MemoryReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every real agent document the repository holds (data/agents-md and data/agents-corpus: 46 documents of 35
 * projects), each written as the AGENTS.md of an agent of its own in one tenant, with a policy the tenant shares with
 * all of them, through the memory service and the live pipeline: no document is refused, no context exceeds its
 * budget at 300, 500, 2,000 or 8,000 tokens, and no context of one agent holds another agent's document.
 */
class AgentContextsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TENANT = "fleet";
    private static final List<Integer> BUDGETS = List.of(300, 500, 2000, 8000);
    private static final String POLICY = """
            # Fleet policy

            - Never paste an API key, a password or a customer's personal data into a commit, an issue or a log.
            """;
    private static LiveProduct product;
    private static Retrieval retrieval;
    /** Agent id → its document's file. */
    private static final Map<String, Path> AGENTS = new TreeMap<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        Path root = Path.of(System.getProperty("engram.root", ".."));
        for (String folder : List.of("agents-md", "agents-corpus")) {
            try (Stream<Path> files = Files.list(root.resolve("data").resolve(folder))) {
                files.filter(f -> f.getFileName().toString().contains("__"))
                        .forEach(f -> AGENTS.put(f.getFileName().toString().replace('+', '-').toLowerCase(), f));
            }
        }
        Properties settings = new Properties();
        settings.setProperty("checkpoint.interval", "1s");
        settings.setProperty("service.rate-limit.per-second", "1000"); // one key asks for 4 contexts of 46 agents
        settings.setProperty("service.rate-limit.burst", "1000");
        product = LiveProduct.start(Optional.empty(), 0, List.of(TENANT), settings, line -> { });
        retrieval = Retrieval.open(PipelineConfig.fromProperties(product.pipeline()).openSearch(),
                PipelineConfig.fromProperties(product.pipeline()).index());
    }

    @AfterAll
    static void stop() throws Exception {
        if (retrieval != null) {
            retrieval.close();
        }
        if (product != null) {
            product.close();
        }
    }

    private JsonNode post(String path, ObjectNode body, int expected) throws Exception {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(product.apiUrl() + path))
                .header("Authorization", "Bearer " + product.keys().get(TENANT)).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as("%s %s", path, answer.body()).isEqualTo(expected);
        return JSON.readTree(answer.body());
    }

    private static ObjectNode document(String agent, String path, String content) {
        return JSON.createObjectNode().put("agent_id", agent).put("path", path).put("doc_class", "core").put("version", 1)
                .put("content", content).put("ts", "2026-12-01T09:00:00Z");
    }

    @Test
    void everyAgentGetsItsOwnAndTheSharedRulesWithinEveryBudgetAndNoDocumentIsRefused() throws Exception {
        assertThat(AGENTS).hasSizeGreaterThanOrEqualTo(46);
        ArrayNode documents = JSON.createArrayNode();
        ArrayNode turns = JSON.createArrayNode();
        for (Map.Entry<String, Path> agent : AGENTS.entrySet()) {
            documents.add(document(agent.getKey(), "AGENTS.md", Files.readString(agent.getValue(), StandardCharsets.UTF_8)));
            String session = "s-" + agent.getKey();
            turns.addObject().put("session_id", session).put("turn_id", "t0").put("seq", 0).put("role", "user")
                    .put("text", "I changed the parser; what should I run before I open the pull request?");
            turns.addObject().put("session_id", session).put("turn_id", "t1").put("seq", 1).put("role", "assistant")
                    .put("text", "Run the tests of the package you changed, then the linters, then open it.");
        }
        documents.add(document(AgentScope.SHARED, "POLICY.md", POLICY));
        for (int from = 0; from < documents.size(); from += 10) { // batches of ten: the largest document is 44 KB
            ObjectNode batch = JSON.createObjectNode();
            ArrayNode records = batch.putArray("records");
            for (int i = from; i < Math.min(documents.size(), from + 10); i++) {
                records.add(documents.get(i));
            }
            assertThat(post("/v1/documents", batch, 202).get("rejected")).isEmpty();
        }
        ObjectNode turnBatch = JSON.createObjectNode();
        turnBatch.set("records", turns);
        assertThat(post("/v1/turns", turnBatch, 202).get("rejected")).isEmpty();
        // a memory of one agent's own, as a gateway that keeps one memory per agent writes it
        String owner = AGENTS.keySet().iterator().next();
        post("/v1/memories", JSON.createObjectNode().put("memory_id", "release-manager").put("agent_id", owner)
                .put("text", "The release manager of this repository is Dana Whitfield."), 202);

        MemoryReader store = retrieval.store();
        Polling.await("every document and turn indexed", Duration.ofSeconds(600), () -> {
            MemoryReader.ReadBatch reads = store.reads(TENANT);
            Supplier<List<MemoryReader.Document>> indexed = reads.documents();
            reads.run();
            return indexed.get().size() == AGENTS.size() + 1
                    && store.count(TENANT, Set.of(io.engram.model.retrieval.RecordType.TURN)) == 2L * AGENTS.size()
                    && store.count(TENANT, Set.of(io.engram.model.retrieval.RecordType.MEMORY)) == 1;
        });
        // no document refused; a warning where a document's hard rules were over their limit and some became soft
        List<JsonNode> fleetRejects = new ArrayList<>();
        for (var r : TopicReader.readAll(KafkaClients.at(product.pipeline().getProperty("kafka.bootstrap")), Topics.REJECTS)) {
            JsonNode reject = JSON.readTree(r.value());
            if (TENANT.equals(reject.path("tenant_id").asText())) {
                fleetRejects.add(reject);
            }
        }
        assertThat(fleetRejects).allSatisfy(r -> {
            assertThat(r.path("severity").asText()).as("%s", r).isEqualTo("warning");
            assertThat(r.path("reason_code").asText()).isEqualTo("hard_rules_demoted");
        });

        String sharedRule = rules(store, AgentScope.SHARED).get(0);
        Map<String, Integer> hardTokens = new HashMap<>();
        for (String agent : AGENTS.keySet()) {
            List<String> own = rules(store, agent);
            for (int budget : BUDGETS) {
                JsonNode context = post("/v1/context", JSON.createObjectNode().put("agent_id", agent)
                        .put("session_id", "s-" + agent).put("query", "how do I run the tests before a pull request?")
                        .put("budget_tokens", budget), 200);
                assertThat(context.get("agent_id").asText()).isEqualTo(agent);
                int used = context.get("tokens_used").asInt();
                int sum = 0;
                for (JsonNode i : context.get("included")) {
                    sum += i.get("tokens").asInt();
                }
                assertThat(used).as("%s at %d", agent, budget).isLessThanOrEqualTo(budget).isEqualTo(sum);
                List<String> ids = new ArrayList<>();
                context.get("included").forEach(i -> ids.add(i.get("id").asText()));
                context.get("excluded").forEach(e -> ids.add(e.get("id").asText()));
                MemoryReader.ReadBatch reads = store.reads(TENANT);
                Supplier<List<MemoryRecord>> records = reads.getAll(ids.stream().distinct().toList());
                reads.run();
                for (MemoryRecord r : records.get()) {
                    assertThat(r.agentId()).as("%s's context at %d holds %s", agent, budget, r.id())
                            .isIn(null, agent, AgentScope.SHARED);
                }
                // its own rules and the shared one are what the hard section is chosen from
                assertThat(ids).as("%s at %d", agent, budget).contains(sharedRule);
                assertThat(ids).containsAll(own);
                if (budget == 8000) {
                    int hard = 0;
                    for (JsonNode i : context.get("included")) {
                        hard += i.get("section").asText().equals("hard_rules") ? i.get("tokens").asInt() : 0;
                    }
                    hardTokens.put(agent, hard);
                }
            }
        }
        System.out.println("hard-rule tokens at 8,000 by agent: " + hardTokens);

        // the memory of one agent's own: in its context, in no other's
        String memory = io.engram.store.RecordIds.memory(TENANT, "release-manager");
        for (String agent : List.of(owner, AGENTS.keySet().stream().skip(1).findFirst().orElseThrow())) {
            JsonNode context = post("/v1/context", JSON.createObjectNode().put("agent_id", agent)
                    .put("query", "who is the release manager?").put("budget_tokens", 8000), 200);
            List<String> included = new ArrayList<>();
            context.get("included").forEach(i -> included.add(i.get("id").asText()));
            if (agent.equals(owner)) {
                assertThat(included).as(agent).contains(memory);
            } else {
                assertThat(included).as(agent).doesNotContain(memory);
            }
        }

        // a read of no agent in a tenant of many: the shared documents only, and it says so
        JsonNode unscoped = post("/v1/context", JSON.createObjectNode().put("query", "how do I run the tests?")
                .put("budget_tokens", 2000), 200);
        assertThat(unscoped.get("agent_id").isNull()).isTrue();
        List<String> unscopedIds = new ArrayList<>();
        unscoped.get("included").forEach(i -> unscopedIds.add(i.get("id").asText()));
        assertThat(unscopedIds).contains(sharedRule);
        assertThat(store.get(TENANT, unscopedIds)).allSatisfy(r -> assertThat(r.agentId()).isIn(null, AgentScope.SHARED));
    }

    /** The ids of an agent's hard and soft rules (records of its documents in tiers 1 and 2). */
    private static List<String> rules(MemoryReader store, String agent) {
        return store.find(TENANT, Map.of("agent_id", agent, "tier", List.of(1, 2)),
                Set.of(io.engram.model.retrieval.RecordType.INVARIANT), 10_000, null, true)
                .stream().map(MemoryRecord::id).toList();
    }
}
