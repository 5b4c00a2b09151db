package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionCommandTest {

    @TempDir
    Path dir;

    @Test
    void jsonHasTheDocumentedFields() throws Exception {
        Path file = dir.resolve("AGENTS.md");
        Files.writeString(file, "# Rules\n\nYou must answer in JSON.\n\n- Never log secrets\n", StandardCharsets.UTF_8);
        CliRun run = CliRun.of("partition", file.toString(), "--json", "--budget", "1000");
        assertThat(run.exit()).isZero();
        JsonNode json = new ObjectMapper().readTree(run.out());
        assertThat(json.path("nodes")).hasSize(3);
        JsonNode rule = json.path("nodes").get(1);
        assertThat(rule.path("index").asInt()).isEqualTo(1);
        assertThat(rule.path("kind").asText()).isEqualTo("paragraph");
        assertThat(rule.path("tier").asInt()).isEqualTo(2);
        assertThat(rule.path("text").asText()).isEqualTo("You must answer in JSON.");
        assertThat(rule.path("tokens").asInt()).isEqualTo(6);
        assertThat(rule.path("line_start").asInt()).isEqualTo(3);
        assertThat(rule.path("line_end").asInt()).isEqualTo(3);
        assertThat(rule.at("/rules/0/modality").asText()).isEqualTo("O");
        assertThat(rule.at("/rules/0/action").asText()).isEqualTo("answer in JSON");
        assertThat(json.path("nodes").get(2).at("/rules/0/modality").asText()).isEqualTo("F");
        assertThat(json.path("conflicts").isArray()).isTrue();
        assertThat(json.at("/budget/tau").asInt()).isEqualTo(1000);
        assertThat(json.at("/budget/hard_tokens").asInt()).isEqualTo(5);
        assertThat(json.at("/budget/soft_tokens").asInt()).isEqualTo(6);
        assertThat(json.at("/budget/verdict").asText()).isEqualTo("accepted");
        assertThat(json.at("/budget/truncated_soft_nodes").asInt()).isZero();
    }

    @Test
    void hardRulesOverTheirLimitKeepTheStrongestAndMoveTheOthersToTheSoftTier() throws Exception {
        Path file = dir.resolve("big.md");
        Files.writeString(file, """
                - You may run the linter on generated files whenever it helps the review.
                - Always run the full test suite before you open a pull request.
                - Never push directly to the main branch of the repository.
                """, StandardCharsets.UTF_8);
        CliRun run = CliRun.of("partition", file.toString(), "--budget", "100", "--json");
        assertThat(run.exit()).isZero();
        JsonNode json = new ObjectMapper().readTree(run.out());
        assertThat(json.at("/budget/verdict").asText()).isEqualTo("hard_demoted");
        assertThat(json.at("/budget/hard_limit").asInt()).isEqualTo(40);
        assertThat(json.at("/budget/hard_tokens").asInt()).isLessThanOrEqualTo(40);
        // 19 + 16 + 15 tokens over the limit of 40: the prohibition and the obligation bind and stay hard (31), the
        // permission moves to the soft tier
        assertThat(json.at("/budget/demoted_hard_nodes").asInt()).isEqualTo(1);
        assertThat(json.at("/budget/hard_tokens").asInt()).isEqualTo(31);
        assertThat(json.at("/nodes/0/tier").asInt()).isEqualTo(2);
        assertThat(json.at("/nodes/1/tier").asInt()).isEqualTo(1);
        assertThat(json.at("/nodes/2/tier").asInt()).isEqualTo(1);
        assertThat(json.at("/warnings/0").asText()).contains("1 hard rule moved to the soft tier");
    }

    @Test
    void invalidInputExitsTwoWithTheReason() throws Exception {
        Path file = dir.resolve("binary.md");
        Files.write(file, new byte[] {'#', (byte) 0xFF, (byte) 0xFE, 0});
        CliRun run = CliRun.of("partition", file.toString());
        assertThat(run.exit()).isEqualTo(PartitionCommand.EXIT_INVALID);
        assertThat(run.err()).contains("NOT_UTF8");
        assertThat(CliRun.of("partition", dir.resolve("missing.md").toString()).exit()).isEqualTo(PartitionCommand.EXIT_INVALID);
    }
}
