package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CollapseCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static String row(int cycle, double recall, double ratio) {
        return String.format(java.util.Locale.ROOT, "{\"tenant_id\":\"acme\",\"cycle_id\":\"c%d\",\"canary_set_id\":\"cs-1\","
                + "\"mean_recall\":%s,\"mean_ndcg\":0.8,\"store_total\":100,\"distinct_content_ratio\":%s,"
                + "\"over_generation_count\":0,\"accepted_actions\":2}", cycle, recall, ratio);
    }

    @Test
    void evaluateReplaysHistoryUnderTheGivenThresholds() throws Exception {
        List<String> lines = new ArrayList<>();
        for (int c = 0; c < 5; c++) {
            lines.add(row(c, 0.9, 1.0));
        }
        lines.add(row(5, 0.8, 1.0)); // 0.1 below the median: fires at a 0.1 threshold, not at the default 0.15
        Path rows = dir.resolve("rows.jsonl");
        Files.write(rows, lines);

        CliRun byDefault = CliRun.of("collapse", "evaluate", "--rows", rows.toString());
        assertThat(byDefault.exit()).isZero();
        JsonNode quiet = JSON.readTree(byDefault.out());
        assertThat(quiet.get("cycle_id").asText()).isEqualTo("c5");
        assertThat(quiet.get("alerts")).isEmpty();

        CliRun stricter = CliRun.of("collapse", "evaluate", "--rows", rows.toString(), "--recall-drop", "0.1");
        JsonNode fired = JSON.readTree(stricter.out()).get("alerts");
        assertThat(fired).hasSize(1);
        assertThat(fired.get(0).get("kind").asText()).isEqualTo("collapse-recall");
        assertThat(fired.get(0).get("detail").asText()).contains("0.800").contains("0.900");
    }

    @Test
    void evaluateNamesTheBadLine() throws Exception {
        Path rows = dir.resolve("bad.jsonl");
        Files.write(rows, List.of(row(0, 0.9, 1.0), "", "{\"tenant_id\":\"acme\",\"cycle_id\":\"c1\"}"));
        CliRun r = CliRun.of("collapse", "evaluate", "--rows", rows.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).as("a blank line is skipped, and counted").contains("bad.jsonl:3").contains("mean_recall");
    }

    @Test
    void shapeSummarisesEachTenantsRecords() throws Exception {
        Path records = dir.resolve("records.jsonl");
        Files.write(records, List.of(
                "{\"tenant_id\":\"acme\",\"memory_id\":\"m1\",\"type\":\"memory\",\"text\":\"a b a b a b\",\"generation\":0,\"source_refs\":[]}",
                "{\"tenant_id\":\"acme\",\"memory_id\":\"m2\",\"type\":\"lesson\",\"text\":\"A  B a b a b\",\"generation\":3,\"source_refs\":[\"m1\"]}",
                "{\"tenant_id\":\"globex\",\"memory_id\":\"m1\",\"type\":\"knowledge\",\"text\":\"one fact\",\"generation\":1,\"source_refs\":[]}"));
        CliRun r = CliRun.of("collapse", "shape", "--records", records.toString());
        assertThat(r.exit()).isZero();
        JsonNode shape = JSON.readTree(r.out());
        JsonNode acme = shape.get("acme");
        assertThat(acme.get("store_total").asLong()).isEqualTo(2);
        assertThat(acme.get("store_by_type").get("lesson").asLong()).isEqualTo(1);
        assertThat(acme.get("distinct_content_ratio").asDouble()).isEqualTo(0.5); // same normHash
        assertThat(acme.get("mean_bigram_diversity").asDouble()).isEqualTo(0.4);
        assertThat(acme.get("over_generation_count").asLong()).isEqualTo(1);
        assertThat(shape.get("globex").get("distinct_content_ratio").asDouble()).isEqualTo(1.0);
    }
}
