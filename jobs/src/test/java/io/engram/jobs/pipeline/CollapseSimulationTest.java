package io.engram.jobs.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.client.EngramProducer;
import io.engram.client.Payload;
import io.engram.client.Topics;
import io.engram.jobs.EngramPipeline;
import io.engram.jobs.PipelineConfig;
import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.EmbeddedServicesExtension;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The detector's headline simulations (collapse, churn, a healthy store) end to end: a gateway produces memories to Kafka, the pipeline embeds and
 * writes them to OpenSearch, the detector closes the gateway's cycles and the rows are read back from PostgreSQL.
 */
@ExtendWith(EmbeddedServicesExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public class CollapseSimulationTest {

    static final Instant T0 = Instant.parse("2026-11-01T10:00:00Z");
    public static final String COLLAPSING = "sim-collapse";
    public static final String CHURNING = "sim-churn";

    /** 30 memories on distinct topics with distinct vocabularies. */
    static final List<String> MEMORIES = List.of(
            "Alice keeps a saltwater aquarium with clownfish and purple anemones",
            "Bernard restores vintage motorcycles in his garage every winter",
            "Camille practises calligraphy with bamboo brushes and walnut ink",
            "Dmitri trains for marathons along the frozen riverbank at dawn",
            "Elena grows heirloom tomatoes and basil on her rooftop terrace",
            "Farid collects antique brass telescopes from maritime auctions",
            "Greta knits woollen sweaters while listening to jazz records",
            "Hiroshi brews single origin coffee using a copper siphon",
            "Ingrid photographs northern lights from remote Icelandic glaciers",
            "Javier plays flamenco guitar at neighbourhood festivals",
            "Katya translates Russian poetry into Portuguese sonnets",
            "Lorenzo bakes sourdough bread with wild fermented starter",
            "Mariam volunteers teaching chess to refugee teenagers",
            "Nikolai repairs mechanical wristwatches under a magnifying lamp",
            "Olga paints watercolour landscapes of alpine meadows",
            "Pedro surfs enormous winter swells near Nazaré lighthouse",
            "Quentin builds wooden sailboats following Norwegian blueprints",
            "Rosalind studies migratory patterns of arctic terns",
            "Sebastian composes electronic music with modular synthesizers",
            "Tamsin rescues abandoned greyhounds from racing kennels",
            "Ulrich climbs limestone cliffs in the Dolomites each summer",
            "Valentina designs ceramic teapots glazed with celadon",
            "Wilhelm forages chanterelle mushrooms in Bavarian forests",
            "Ximena choreographs contemporary dance for theatre companies",
            "Yusuf restores Ottoman manuscripts with gold leaf illumination",
            "Zofia keeps honeybees producing lavender flavoured honey",
            "Anselm races homing pigeons across Flemish countryside",
            "Beatrix embroiders botanical tapestries with silk thread",
            "Cassius forges damascus steel kitchen knives by hand",
            "Delphine cultivates rare orchids inside a Victorian greenhouse");

    static final String BLAND_2 = "the user has many general preferences and the user has many general habits";
    static final String BLAND_3 = "the user has many things and the user has many things";
    static final String BLAND_4 = "the user has things the user has things";

    private List<Map<String, Object>> collapsing;
    private List<Map<String, Object>> churning;
    private List<String> alertsOnKafka;
    private ReportedMetrics metrics;

    @BeforeAll
    void runPipeline(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch, EmbeddedPostgreSql postgres) throws Exception {
        Map<TopicPartition, Long> from = PipelineRun.inputOffsets(kafka);
        try (EngramProducer producer = new EngramProducer(kafka.bootstrapServers())) {
            produceCollapse(producer);
            produceChurn(producer);
            producer.flush();
        }
        PipelineConfig config = PipelineRun.config(kafka, openSearch.httpUrl(), postgres, "engram-memories-sim", "collapse-sim");
        InMemoryReporter reporter = InMemoryReporter.createWithRetainedMetrics();
        PipelineRun.run(config, PipelineRun.source(config, from), EngramPipeline.sinks(config), 0,
                reporter.addToConfiguration(new Configuration()));
        metrics = new ReportedMetrics(reporter);
        collapsing = rows(postgres, COLLAPSING);
        churning = rows(postgres, CHURNING);
        alertsOnKafka = PipelineRun.readAll(kafka, Topics.ALERTS).stream()
                .map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
    }

    private static String id(int i) {
        return String.format("m%02d", i + 1);
    }

    /** The collapsing tenant's nine gateway cycles (the last left open: it closes on the quiet gap). */
    public static void produceCollapse(EngramProducer producer) {
        Clock clock = new Clock();
        for (int i = 0; i < 30; i++) {
            producer.send(Payload.memory(COLLAPSING, id(i), "memory", MEMORIES.get(i), List.of(), 0, "c0", clock.next()));
        }
        for (int c = 1; c <= 4; c++) { // steady cycles: one accepted write that changes nothing
            producer.send(Payload.memory(COLLAPSING, id(c), "memory", MEMORIES.get(c), List.of(), 0, "c" + c, clock.next()));
        }
        // pass 1: m01..m09 merged in threes, their sentences kept behind a bland frame, provenance kept
        for (int g = 0; g < 3; g++) {
            List<String> group = List.of(id(3 * g), id(3 * g + 1), id(3 * g + 2));
            String text = "In short: " + MEMORIES.get(3 * g) + " In short: " + MEMORIES.get(3 * g + 1) + " In short: "
                    + MEMORIES.get(3 * g + 2);
            producer.send(Payload.memory(COLLAPSING, "g1-" + g, "memory", text, group, 1, "c5", clock.next()));
            group.forEach(m -> producer.send(Payload.memoryDeleted(COLLAPSING, m, "memory", "c5", clock.next())));
        }
        // pass 2: m10..m18 into one bland text, provenance dropped
        merge(producer, clock, 9, 18, "g2-", BLAND_2, 2, "c6");
        // pass 3: m19..m27, blander
        merge(producer, clock, 18, 27, "g3-", BLAND_3, 3, "c7");
        // pass 4: the last originals, the pass-1 merges and the pass-2 merges, blandest
        merge(producer, clock, 27, 30, "g4a-", BLAND_4, 4, "c8");
        List<String> pass1 = List.of("g1-0", "g1-1", "g1-2");
        List<String> pass2 = List.of("g2-0", "g2-1", "g2-2");
        producer.send(Payload.memory(COLLAPSING, "g4b-0", "memory", BLAND_4, List.of(), 4, "c8", clock.next()));
        pass1.forEach(m -> producer.send(Payload.memoryDeleted(COLLAPSING, m, "memory", "c8", clock.next())));
        producer.send(Payload.memory(COLLAPSING, "g4c-0", "memory", BLAND_4, List.of(), 4, "c8", clock.next()));
        pass2.forEach(m -> producer.send(Payload.memoryDeleted(COLLAPSING, m, "memory", "c8", clock.next())));
    }

    private static void merge(EngramProducer producer, Clock clock, int from, int to, String prefix, String text,
                              int generation, String cycle) {
        for (int start = from, g = 0; start < to; start += 3, g++) {
            producer.send(Payload.memory(COLLAPSING, prefix + g, "memory", text, List.of(), generation, cycle, clock.next()));
            for (int i = start; i < Math.min(start + 3, to); i++) {
                producer.send(Payload.memoryDeleted(COLLAPSING, id(i), "memory", cycle, clock.next()));
            }
        }
    }

    /** The churning tenant's seven gateway cycles (the last left open). */
    public static void produceChurn(EngramProducer producer) {
        Clock clock = new Clock();
        for (int i = 0; i < 30; i++) {
            producer.send(Payload.memory(CHURNING, id(i), "memory", MEMORIES.get(i), List.of(), 0, "c0", clock.next()));
        }
        // six cycles each rewording five memories: 30 accepted writes, nothing retrieval-visible changes
        for (int c = 1; c <= 6; c++) {
            for (int k = 0; k < 5; k++) {
                int i = (5 * (c - 1) + k) % 30;
                producer.send(Payload.memory(CHURNING, id(i), "memory", "Restated " + c + ": " + MEMORIES.get(i),
                        List.of(), 0, "c" + c, clock.next()));
            }
        }
    }

    @Test
    void oneRowPerCycleAndTheLastClosesForQuiet() {
        assertThat(collapsing).extracting(r -> r.get("cycle_id"))
                .containsExactly("c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8");
        assertThat(collapsing.subList(0, 8)).allSatisfy(r -> assertThat(r.get("close_reason")).isEqualTo("cycle_id"));
        assertThat(collapsing.get(8).get("close_reason")).isEqualTo("quiet_gap");
        assertThat(collapsing).extracting(r -> r.get("store_total"))
                .containsExactly(30L, 30L, 30L, 30L, 30L, 24L, 18L, 12L, 6L);
        assertThat(collapsing).extracting(r -> r.get("canary_count")).containsOnly(30);
        assertThat(collapsing).extracting(r -> r.get("canary_set_id")).containsOnly(collapsing.get(0).get("canary_set_id"));
        assertThat(collapsing).extracting(r -> r.get("accepted_actions"))
                .containsExactly(30L, 1L, 1L, 1L, 1L, 12L, 12L, 12L, 12L);
    }

    @Test
    void shapeFallsMonotonicallyAsMergesGetBlander() {
        List<Double> ratio = column(collapsing, "distinct_content_ratio");
        List<Double> bigrams = column(collapsing, "mean_bigram_diversity");
        assertThat(ratio.subList(0, 6)).containsOnly(1.0);
        assertThat(ratio.get(6)).isEqualTo(16 / 18.0);
        assertThat(ratio.get(7)).isEqualTo(8 / 12.0);
        assertThat(ratio.get(8)).isEqualTo(2 / 6.0);
        for (int c = 5; c < 9; c++) {
            assertThat(ratio.get(c)).isLessThanOrEqualTo(ratio.get(c - 1));
            assertThat(bigrams.get(c)).isLessThan(bigrams.get(c - 1));
        }
        assertThat(collapsing.get(8).get("over_generation_count")).isEqualTo(6L);
    }

    @Test
    void recallSurvivesTheFirstMergeByProvenanceAndFallsWhenItIsDropped() {
        List<Double> recall = column(collapsing, "mean_recall");
        assertThat(recall.subList(0, 6)).containsOnly(1.0); // pass 1 (c5) found through source_refs
        assertThat(recall.get(6)).isEqualTo(21 / 30.0);
        assertThat(recall.get(7)).isEqualTo(12 / 30.0);
        assertThat(recall.get(8)).isEqualTo(0.0);
    }

    @Test
    void collapseAlertsFireByPassFour() {
        assertThat(alerts(collapsing, 0, 5)).isEmpty();
        // pass 1 kept provenance: twelve writes and nothing retrieval- or shape-visible changed, which is churn
        assertThat(alerts(collapsing, 5, 6)).containsExactly("churn");
        assertThat(alerts(collapsing, 6, 7)).contains("collapse-recall", "collapse-entropy");
        assertThat(alerts(collapsing, 8, 9)).contains("collapse-recall", "collapse-entropy", "collapse-shrink");
        assertThat(alerts(collapsing, 6, 9)).doesNotContain("churn");
        assertThat(alertsOnKafka).filteredOn(a -> a.contains("\"tenant_id\":\"" + COLLAPSING + "\""))
                .hasSize(alerts(collapsing, 0, 9).size());
    }

    @Test
    void theAlertMetricsCountTheAlertRows() {
        Map<String, Long> fired = new java.util.HashMap<>();
        for (List<Map<String, Object>> rows : List.of(collapsing, churning)) {
            alerts(rows, 0, rows.size()).forEach(kind -> fired.merge(kind, 1L, Long::sum));
        }
        assertThat(fired).containsKeys("churn", "collapse-recall", "collapse-entropy", "collapse-shrink");
        assertThat(metrics.byLabel("engram_kind_alerts", "kind")).isEqualTo(fired);
        assertThat(metrics.sum("engram_cycles_closed")).isEqualTo(collapsing.size() + churning.size());
    }

    @Test
    void churnFiresWithoutAnyCollapseAlert() {
        assertThat(churning).extracting(r -> r.get("cycle_id")).containsExactly("c0", "c1", "c2", "c3", "c4", "c5", "c6");
        assertThat(column(churning, "mean_recall")).containsOnly(1.0);
        assertThat(column(churning, "distinct_content_ratio")).containsOnly(1.0);
        assertThat(alerts(churning, 0, 5)).isEmpty();
        assertThat(alerts(churning, 5, 7)).containsExactly("churn", "churn");
    }

    private static List<String> alerts(List<Map<String, Object>> rows, int from, int to) {
        List<String> kinds = new ArrayList<>();
        for (Map<String, Object> r : rows.subList(from, to)) {
            String json = (String) r.get("alerts_json");
            for (String kind : List.of("collapse-recall", "collapse-entropy", "collapse-shrink", "merge-floor", "churn")) {
                if (json.contains("\"" + kind + "\"")) {
                    kinds.add(kind);
                }
            }
        }
        return kinds;
    }

    private static List<Double> column(List<Map<String, Object>> rows, String name) {
        return rows.stream().map(r -> (Double) r.get(name)).toList();
    }

    static List<Map<String, Object>> rows(EmbeddedPostgreSql postgres, String tenant) throws Exception {
        List<Map<String, Object>> rows = new ArrayList<>();
        try (Connection c = postgres.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT * FROM cycle_metrics WHERE tenant_id = '" + tenant + "' ORDER BY ts")) {
            while (rs.next()) {
                Map<String, Object> row = new java.util.LinkedHashMap<>();
                for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                    row.put(rs.getMetaData().getColumnName(i), rs.getObject(i));
                }
                rows.add(row);
            }
        }
        return rows;
    }

    /** Event times one minute apart. */
    static final class Clock {
        private Instant now = T0;

        Instant next() {
            now = now.plusSeconds(60);
            return now;
        }
    }
}
