package io.engram.jobs.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.engram.client.MalformedCorpus;
import io.engram.client.Topics;
import io.engram.jobs.EngramPipeline;
import io.engram.jobs.PipelineConfig;
import io.engram.jobs.RecordLog;
import io.engram.model.embed.EmbeddingModel;
import io.engram.model.embed.OnnxEmbedder;
import io.engram.model.partition.DocumentNode;
import io.engram.model.partition.MarkdownPartitioner;
import io.engram.model.partition.PartitionConfig;
import io.engram.model.retrieval.AssembledContext;
import io.engram.model.retrieval.TurnWindows;
import io.engram.retrieval.ContextOptions;
import io.engram.retrieval.ContextService;
import io.engram.retrieval.HybridRetriever;
import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.EmbeddedServicesExtension;
import io.engram.stack.OutageProxy;
import io.engram.store.OpenSearchMemoryStore;
import io.engram.store.RecordIds;
import io.engram.store.RetryPolicy;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The whole pipeline on the embedded stack, twice over the same input ({@link EndToEndInput}). The first run is failure-free and may not restart at
 * all (bad input must not fail a task); the second is the subclass's fault ({@link #variant}) and must leave
 * the same OpenSearch documents and PostgreSQL rows.
 */
@ExtendWith(EmbeddedServicesExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class EndToEndRuns {

    static final String ACME = EndToEndInput.ACME;
    static final String GLOBEX = EndToEndInput.GLOBEX;
    static final String INITECH = EndToEndInput.INITECH;
    static final Instant T0 = EndToEndInput.T0;
    static final ObjectMapper JSON = new ObjectMapper();

    private EndToEndInput input;
    private List<JsonNode> validRejected;

    Map<String, List<String>> plain;
    Map<String, List<String>> rowsPlain;
    private OpenSearchMemoryStore store;
    private List<JsonNode> rejects;
    private ReportedMetrics metrics;
    private List<Map<String, String>> recordLines;
    private long indexedByOpenSearch;
    private Map<String, List<JsonNode>> changesPlain;
    private Map<String, List<JsonNode>> changesVariant;

    @BeforeAll
    void runPlainAndVariant(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch, EmbeddedPostgreSql postgres) throws Exception {
        Map<TopicPartition, Long> from = PipelineRun.inputOffsets(kafka);
        input = EndToEndInput.produce(kafka);

        // an index of its own per test class: a second class's run into the first one's index would start with
        // that run's records searchable, and its first cycles' canaries would be scored against them
        String plainRun = "e2e-plain-" + getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT);
        PipelineConfig config = PipelineRun.config(kafka, openSearch.httpUrl(), postgres, "engram-memories-" + plainRun, plainRun);
        InMemoryReporter reporter = InMemoryReporter.createWithRetainedMetrics();
        Instant plainStarted = Instant.now();
        try (LogCapture log = LogCapture.begin()) {
            PipelineRun.run(config, PipelineRun.source(config, from), EngramPipeline.sinks(config), 0,
                    reporter.addToConfiguration(new Configuration()));
            recordLines = log.contexts().stream().filter(c -> c.get("logger").equals(RecordLog.class.getName())).toList();
        }
        metrics = new ReportedMetrics(reporter);
        indexedByOpenSearch = JSON.readTree(java.net.URI.create(openSearch.httpUrl() + "/" + config.index()
                + "/_stats/indexing").toURL()).path("_all").path("primaries").path("indexing").path("index_total").asLong();
        store = new OpenSearchMemoryStore(openSearch.httpUrl(), config.index(), RetryPolicy.DEFAULT);
        plain = EndToEndInput.snapshot(store);
        rowsPlain = EndToEndInput.takeRows(postgres);

        changesPlain = ChangeFeedChecks.publishedSince(kafka, plainStarted);
        Instant variantStarted = Instant.now();
        variant(kafka, openSearch, postgres, from);
        changesVariant = ChangeFeedChecks.publishedSince(kafka, variantStarted);
        List<JsonNode> all = PipelineRun.readAll(kafka, Topics.REJECTS).stream().map(r -> {
            try {
                return JSON.readTree(r.value());
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
        }).toList();
        rejects = all.stream().filter(r -> input.badByCoordinates.containsKey(coordinates(r))).toList();
        validRejected = all.stream().filter(r -> input.validCoordinates.contains(coordinates(r))).toList();
    }

    /** The contents a second run leaves: its documents per tenant and its rows. */
    record Contents(Map<String, List<String>> documents, Map<String, List<String>> rows) {
    }

    /** Runs the pipeline again over the same input through {@code proxy}, into its own index. */
    static Contents runThrough(OutageProxy proxy, String name, int restarts, EmbeddedKafka kafka,
                               EmbeddedOpenSearch openSearch, EmbeddedPostgreSql postgres,
                               Map<TopicPartition, Long> from) throws Exception {
        PipelineConfig config = PipelineRun.config(kafka, proxy.url(), postgres, "engram-memories-" + name, name);
        PipelineRun.run(config, PipelineRun.source(config, from), EngramPipeline.sinks(config), restarts);
        try (OpenSearchMemoryStore s = new OpenSearchMemoryStore(openSearch.httpUrl(), config.index(), RetryPolicy.DEFAULT)) {
            return new Contents(EndToEndInput.snapshot(s), EndToEndInput.rows(postgres));
        }
    }

    /** The second run over the same input, into its own index, after the plain run's rows were deleted. */
    abstract void variant(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch, EmbeddedPostgreSql postgres,
                          Map<TopicPartition, Long> from) throws Exception;

    @AfterAll
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private static String coordinates(JsonNode reject) {
        return reject.path("source_topic").asText() + "/" + reject.path("partition").asInt() + "/"
                + reject.path("offset").asLong();
    }

    private static Set<String> ids(List<String> lines, String type) {
        return lines.stream().map(l -> l.split("\\|", -1)).filter(c -> c[1].equals(type)).map(c -> c[0])
                .collect(Collectors.toSet());
    }

    @Test
    void theChangeFeedToldEachChangeOnceAndOnlyWhatTheStoreTook() {
        assertThat(changesPlain.values().stream().flatMap(List::stream).map(c -> c.path("kind").asText()).distinct())
                .contains("upserted", "deleted", "superseded", "forgotten", "document_accepted");
        assertThat(ChangeFeedChecks.asMultiset(changesVariant)).as("the second run's feed, its fault and replay included")
                .isEqualTo(ChangeFeedChecks.asMultiset(changesPlain));
        changesPlain.forEach((tenant, feed) -> ChangeFeedChecks.assertTellsTheStore(tenant, feed,
                plain.getOrDefault(tenant, List.of()).stream().map(l -> l.split("\\|", -1)[0]).toList()));
        assertThat(changesPlain.get(EndToEndInput.HOOLI).toString()).as("hooli's forget is told")
                .contains("\"kind\":\"forgotten\"");
    }

    @Test
    void theStoreHoldsExactlyTheLiveRecordsOfEachTenant() throws Exception {
        try (OnnxEmbedder embedder = EmbeddingModel.ALL_MINILM_L6_V2.open()) {
            MarkdownPartitioner partitioner = new MarkdownPartitioner(PartitionConfig.defaults().withTokens(embedder.tokenCounter()));
            for (String tenant : EndToEndInput.TENANTS) {
                List<String> lines = plain.get(tenant);
                Set<String> invariants = new HashSet<>();
                Set<String> lore = new HashSet<>();
                Set<String> lines1 = new HashSet<>();
                for (Map.Entry<String, String> doc : input.liveDocuments.getOrDefault(tenant, Map.of()).entrySet()) {
                    String[] agentPath = doc.getKey().split("/", 2);
                    long version = input.liveVersions.get(tenant + "/" + doc.getKey());
                    for (DocumentNode n : partitioner.partition(doc.getValue()).storedNodes()) {
                        String id = RecordIds.chunk(tenant, agentPath[0], agentPath[1], version, n.index());
                        (n.tier() == 0 ? lore : invariants).add(id);
                        lines1.add(id + "|" + (n.tier() == 0 ? "lore" : "invariant") + "|" + n.tier() + "|0|" + version);
                    }
                }
                assertThat(ids(lines, "invariant")).isEqualTo(invariants);
                assertThat(ids(lines, "lore")).isEqualTo(lore);
                assertThat(lines.stream().filter(l -> l.startsWith("doc-"))
                        .map(l -> String.join("|", java.util.Arrays.copyOf(l.split("\\|", -1), 5))).collect(Collectors.toSet()))
                        .isEqualTo(lines1);
            }
        }
        Set<String> turnIds = new HashSet<>();
        for (int seq = 0; seq < 40; seq++) {
            turnIds.add(RecordIds.turn(ACME, "s1", "t" + seq));
        }
        assertThat(ids(plain.get(ACME), "turn")).isEqualTo(turnIds);
        assertThat(ids(plain.get(INITECH), "turn")).isEmpty();
        // hooli's forgotten user left nothing; the other user's session is whole
        Set<String> kept = new HashSet<>();
        for (int seq = 0; seq < 5; seq++) {
            kept.add(RecordIds.turn(EndToEndInput.HOOLI, "h-keep", "t" + seq));
        }
        assertThat(ids(plain.get(EndToEndInput.HOOLI), "turn")).isEqualTo(kept);
        // and the window of the kept session's first three turns (five turns: one window every three)
        assertThat(ids(plain.get(EndToEndInput.HOOLI), "window"))
                .containsExactly(TurnWindows.id(EndToEndInput.HOOLI, "h-keep", "t0", "t2"));
        assertThat(plain.get(EndToEndInput.HOOLI)).hasSize(6);
        long namingFriday = plain.get(EndToEndInput.HOOLI).stream().filter(l -> !l.contains("|window|") && l.contains("Friday"))
                .count();
        assertThat(namingFriday).as("the kept user's turns name Friday").isPositive();
        assertThat(plain.get(EndToEndInput.ENTITIES_OF + EndToEndInput.HOOLI)).as("the forgotten user's mentions went with them")
                .anyMatch(l -> l.startsWith("entity|friday|" + namingFriday + "|"));
        // every third of acme's 40 turns, a window of the last six
        assertThat(ids(plain.get(ACME), "window")).hasSize(13).contains(TurnWindows.id(ACME, "s1", "t0", "t2"),
                TurnWindows.id(ACME, "s1", "t0", "t5"), TurnWindows.id(ACME, "s1", "t33", "t38"));
        assertThat(ids(plain.get(INITECH), "memory")).containsExactlyInAnyOrder(
                RecordIds.memory(INITECH, "mem-0"), RecordIds.memory(INITECH, "mem-2"));
        assertThat(ids(plain.get(INITECH), "knowledge")).containsExactlyInAnyOrder(
                RecordIds.memory(INITECH, "mem-1"), RecordIds.memory(INITECH, "mem-3"));
        assertThat(plain.get(INITECH)).contains(RecordIds.memory(INITECH, "mem-5")
                + "|lesson|null|1|null|[mem-2]|Back up the staging database before the Sunday restore");
        // no record of the bad tenant's rejected documents
        assertThat(plain.get(ACME)).noneMatch(l -> l.contains("DEEP") || l.contains("BINARY"));
        // the deleted tenant left nothing: no turn, window or rule, whether written before its deletion or read after
        assertThat(plain.get(EndToEndInput.VANDELAY)).isEmpty();
    }

    /** Umbrella's chains in order, the late Lisbon one stored superseded, the cycle's second edge refused, the
     * expired and the forgotten memory gone (EndToEndInput#facts). */
    @Test
    void memoriesSupersedeInOrderAndExpiredOrForgottenOnesAreGone() {
        String u = EndToEndInput.UMBRELLA + "/";
        assertThat(plain.get(EndToEndInput.UMBRELLA)).containsExactly(
                fact("b1", "Bob lives in Oslo", "user.city", "", null, 0),
                fact("c1", "The team meets on Mondays", null, u + "c2", null, 0),
                fact("c2", "The team meets on Tuesdays", null, u + "c1", "c1", 500),
                fact("f2", "Ann's phone number is 555-0199", null, u + "f1", null, 0),
                fact("u1", "Ann lives in Paris", "user.city", "", "u2", 300),
                fact("u2", "Ann lives in Berlin", "user.city", "", "u3", 600),
                fact("u3", "Ann lives in Lisbon", "user.city", "", "u4", 900),
                fact("u4", "Ann lives in Rome", "user.city", "", null, 0),
                fact("u5", "Ann moved away from Paris", null, u + "u1", null, 0));
    }

    private static String fact(String id, String text, String key, String supersedes, String by, long second) {
        String u = EndToEndInput.UMBRELLA + "/";
        return u + id + "|memory|null|0|null|[]|" + text + "|" + key + "|[" + supersedes + "]|"
                + (by == null ? "null@null" : u + by + "@" + T0.plusSeconds(second));
    }

    @Test
    void summariesNameTheTurnsTheyCover() {
        for (String tenant : List.of(ACME, GLOBEX)) {
            List<String[]> summaries = plain.get(tenant).stream().map(l -> l.split("\\|", -1))
                    .filter(c -> c[1].equals("summary")).toList();
            assertThat(summaries).isNotEmpty();
            Set<String> covered = new HashSet<>();
            for (String[] s : summaries) {
                assertThat(Integer.parseInt(s[3])).isGreaterThanOrEqualTo(1);
                List<String> refs = List.of(s[5].substring(1, s[5].length() - 1).split(", "));
                assertThat(refs).hasSizeGreaterThanOrEqualTo(2).allMatch(r -> r.matches("t\\d+") || r.startsWith("sum-"));
                String[] span = s[s.length - 1].substring("from ".length()).split(" to ");
                assertThat(Instant.parse(span[0])).as("the span of its sources, first to last").isBefore(Instant.parse(span[1]));
                covered.addAll(refs);
            }
            // the continuity tail stays raw: the newest turns are not summarised
            assertThat(covered).doesNotContain("t39").contains("t0");
        }
    }

    @Test
    void aContextAssemblesFromWhatThePipelineWrote() {
        try (OnnxEmbedder embedder = EmbeddingModel.ALL_MINILM_L6_V2.open()) {
            ContextService service = new ContextService(store,
                    new HybridRetriever(store, embedder, HybridRetriever.Options.FOR_CONTEXT), ContextOptions.DEFAULT);
            AssembledContext context = service.assemble(new ContextService.Request(INITECH, null, null,
                    "when is the staging database restored?", 2000), T0.plusSeconds(3600));
            List<String> included = context.included().stream().map(i -> i.item().id()).toList();
            assertThat(included).contains(RecordIds.memory(INITECH, "mem-2"))
                    .allMatch(id -> id.startsWith(INITECH + "/") || id.startsWith("doc-"));
            assertThat(context.included()).anyMatch(i -> i.section() == AssembledContext.Section.HARD_RULES);
            AssembledContext acme = service.assemble(new ContextService.Request(ACME, "s1", "u1",
                    "office move", 2000), T0.plusSeconds(3600));
            assertThat(acme.included()).anyMatch(i -> i.item().id().equals(RecordIds.turn(ACME, "s1", "t39")));
        }
    }

    @Test
    void cycleRowsLandInPostgres() {
        List<String> cycles = rowsPlain.get("cycle_metrics");
        assertThat(cycles).filteredOn(l -> l.startsWith(INITECH + "|")).extracting(l -> l.split("\\|")[1])
                .containsExactly("c0", "c1");
        assertThat(cycles).filteredOn(l -> l.startsWith(INITECH + "|c1|")).singleElement()
                .satisfies(l -> assertThat(l).contains("|quiet_gap|"));
        assertThat(cycles).anyMatch(l -> l.startsWith(ACME + "|")); // acme's summaries are its own cycles
        assertThat(rowsPlain.get("canary_queries")).isNotEmpty();
    }

    @Test
    void everyMalformedRecordIsRejectedOncePerRunWithItsReason() {
        assertThat(input.badByCoordinates).hasSizeGreaterThan(300);
        Map<String, List<JsonNode>> byRecord = rejects.stream().collect(Collectors.groupingBy(EndToEndRuns::coordinates));
        for (Map.Entry<String, MalformedCorpus.Bad> e : input.badByCoordinates.entrySet()) {
            List<JsonNode> got = byRecord.getOrDefault(e.getKey(), List.of());
            assertThat(got).as(e.getKey()).hasSize(2); // one per run: no loss, no duplicate even after a failure
            for (JsonNode r : got) {
                assertThat(r.get("reason_code").asText()).as(e.getKey()).isEqualTo(e.getValue().expected().code());
                assertThat(java.util.Base64.getDecoder().decode(r.get("original").asText())).isEqualTo(e.getValue().value());
            }
        }
    }

    /**
     * The failure-free run's metrics against what was sent and what landed: records in per topic, rejects per
     * reason, documents indexed (OpenSearch's own count), texts embedded, cycles closed and alerts fired (the rows
     * in PostgreSQL), and the detector's gauges at the end.
     */
    @Test
    void theMetricsCountWhatWasSentAndWhatLanded() {
        Map<String, Long> sentPerTopic = new java.util.TreeMap<>();
        input.validCoordinates.forEach(c -> sentPerTopic.merge(c.substring(0, c.indexOf('/')), 1L, Long::sum));
        input.badByCoordinates.keySet().forEach(c -> sentPerTopic.merge(c.substring(0, c.indexOf('/')), 1L, Long::sum));
        assertThat(metrics.byLabel("engram_topic_kind_records_in", "topic")).isEqualTo(sentPerTopic);
        assertThat(sentPerTopic).containsOnlyKeys(Topics.INPUTS);
        assertThat(metrics.sum("engram_topic_kind_records_in", "topic", Topics.TURNS, "kind", "turn"))
                .isEqualTo(sentPerTopic.get(Topics.TURNS));

        Map<String, Long> badPerReason = input.badByCoordinates.values().stream()
                .collect(Collectors.groupingBy(b -> b.expected().code(), Collectors.counting()));
        assertThat(metrics.byLabel("engram_reason_rejects", "reason")).isEqualTo(badPerReason);

        long indexed = metrics.sum("engram_op_opensearch_documents", "op", "index");
        long superseded = metrics.sum("engram_op_opensearch_documents", "op", "supersede");
        // umbrella's marks: Paris by Berlin, Berlin by Rome then by Lisbon; and the forgotten phone number by the new
        // one when that arrives before the forget (another topic), a mark OpenSearch applies before the forget — sent
        // once more for a target the writer keeps no fact of (FactKeeper), so how many depends on that race
        assertThat(superseded).isBetween(3L, 5L);
        // a mark is an update, which OpenSearch counts as an index; a mark of a memory the store no longer holds (the
        // phone number, forgotten before its mark arrived) is sent and counted but changes nothing
        assertThat(indexed).isPositive();
        assertThat(indexedByOpenSearch - indexed).as("marks OpenSearch applied").isBetween(3L, superseded);
        long summaries = metrics.sum("engram_summaries_written");
        assertThat(summaries).isGreaterThanOrEqualTo(plain.values().stream().flatMap(List::stream)
                .filter(l -> l.split("\\|", -1)[1].equals("summary")).count()).isPositive();
        // what the embedding operator embedded and compaction summarised was indexed, or dropped by the writer
        // because a forget covered it (hooli's forgotten user)
        long dropped = metrics.sum("engram_records_dropped_forgotten");
        assertThat(dropped).isPositive();
        assertThat(metrics.sum("engram_embed_vectors") + summaries).isEqualTo(indexed + dropped);
        assertThat(metrics.sum("engram_embed_cache_hits") + metrics.sum("engram_embed_cache_misses"))
                .isEqualTo(metrics.sum("engram_embed_texts"));
        // a window asks for its turns' texts, which their own records asked for too: it adds none to the model's
        long windowsIndexed = plain.values().stream().mapToLong(lines -> ids(lines, "window").size()).sum();
        assertThat(windowsIndexed).isPositive();
        assertThat(metrics.sum("engram_embed_model_texts")).isPositive()
                .isLessThanOrEqualTo(metrics.sum("engram_embed_vectors") - windowsIndexed);
        assertThat(metrics.sum("engram_forgets_applied"))
                .as("hooli's user, umbrella's phone number and its expiry, vandelay's deletion").isEqualTo(4);

        List<String> cycles = rowsPlain.get("cycle_metrics");
        assertThat(metrics.sum("engram_cycles_closed")).isEqualTo(cycles.size()).isPositive();
        Map<String, Long> alertsPerKind = rowsPlain.get("collapse_alerts").stream()
                .collect(Collectors.groupingBy(l -> l.split("\\|", -1)[2], Collectors.counting()));
        assertThat(metrics.byLabel("engram_kind_alerts", "kind")).isEqualTo(alertsPerKind);
        assertThat(metrics.sum("engram_detector_open_cycles")).isZero(); // the end of input closes every cycle
        Map<String, String[]> lastCycle = new java.util.TreeMap<>();
        for (String line : cycles) {
            String[] c = line.split("\\|", -1);
            lastCycle.merge(c[0], c, (a, b) -> a[2].compareTo(b[2]) >= 0 ? a : b);
        }
        assertThat(metrics.sum("engram_detector_tenants")).isEqualTo(lastCycle.size());
        assertThat(metrics.sum("engram_detector_shape_records"))
                .isEqualTo(lastCycle.values().stream().mapToLong(c -> Long.parseLong(c[10])).sum());
    }

    /** One log line per reject and per forget, its tenant and source coordinates as fields of the line's context. */
    @Test
    void theLinesAboutARecordCarryItsTenantAndCoordinates() {
        Map<String, Map<String, String>> rejectLines = new java.util.HashMap<>();
        for (Map<String, String> line : recordLines) {
            if (line.containsKey("reason_code")) {
                String at = line.get("source_topic") + "/" + line.get("partition") + "/" + line.get("offset");
                assertThat(rejectLines.put(at, line)).as("one line for " + at).isNull();
            }
        }
        assertThat(rejectLines.keySet()).isEqualTo(input.badByCoordinates.keySet());
        input.badByCoordinates.forEach((at, bad) -> {
            Map<String, String> line = rejectLines.get(at);
            assertThat(line.get("reason_code")).as(at).isEqualTo(bad.expected().code());
            if (bad.expected() == io.engram.client.RejectReason.DOCUMENT_TOO_DEEP) {
                assertThat(line.get("tenant_id")).as(at).isIn(EndToEndInput.TENANTS);
            }
        });
        assertThat(recordLines).filteredOn(l -> l.containsKey("forget_id"))
                .extracting(l -> l.get("tenant_id") + " " + l.get("forget_id")).containsExactlyInAnyOrder(
                        EndToEndInput.HOOLI + " forget-gone", EndToEndInput.UMBRELLA + " forget-f1",
                        EndToEndInput.VANDELAY + " forget-vandelay",
                        EndToEndInput.UMBRELLA + " expiry/" + RecordIds.memory(EndToEndInput.UMBRELLA, "e1") + "@"
                                + T0.plusSeconds(1000));
    }

    @Test
    void noValidRecordIsRejectedAndInputNeverRestartsTheJob() {
        assertThat(input.validCoordinates).hasSizeGreaterThan(80);
        assertThat(validRejected).isEmpty();
    }
}
