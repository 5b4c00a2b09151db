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
    void hardOverflowExitsThreeWithTheNumbers() throws Exception {
        Path file = dir.resolve("big.md");
        Files.writeString(file, "- " + "rule ".repeat(100) + "\n", StandardCharsets.UTF_8);
        CliRun run = CliRun.of("partition", file.toString(), "--budget", "100");
        assertThat(run.exit()).isEqualTo(PartitionCommand.EXIT_REJECTED);
        assertThat(run.out()).contains("rejected: hard rules take 126 tokens, over the limit 40");
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
