package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.service.ResponsesJson;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CompactCommandTest {

    @TempDir
    Path dir;

    @Test
    void printsTheTailAndTheSummariesWithTheirScores() throws Exception {
        String[] topics = {"We hiked up the mountain and saw goats near the summit.",
                "My sister painted the lake at sunrise; the colours were amazing.",
                "The dog chewed my running shoes again this morning.",
                "I have a job interview on Thursday and I feel nervous.",
                "We baked a chocolate cake for grandma's birthday party."};
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            lines.add(String.format("{\"schema\":\"turn.v1\",\"tenant_id\":\"acme\",\"session_id\":\"s1\",\"turn_id\":\"t%d\","
                    + "\"seq\":%d,\"role\":\"%s\",\"text\":\"%s\",\"ts\":\"2026-11-01T10:%02d:00Z\"}",
                    i, i, i % 2 == 0 ? "user" : "assistant", topics[i % topics.length], i));
        }
        lines.add(lines.get(3)); // a replayed turn counts once
        Path file = dir.resolve("session.jsonl");
        Files.write(file, lines);

        StringWriter out = new StringWriter();
        CommandLine cli = EngramCli.commandLine();
        cli.setOut(new PrintWriter(out));
        assertThat(cli.execute("compact", "--session", file.toString(), "--json")).isZero();
        JsonNode json = ResponsesJson.JSON.readTree(out.toString());
        JsonNode summaries = json.path("summaries");
        // as the pipeline applies the rule turn by turn: once 20 turns wait before the tail they become one
        // summary; the ~10 turns that follow them wait (below 20, not idle)
        assertThat(summaries).hasSize(1);
        JsonNode s = summaries.get(0);
        assertThat(s.path("id").asText()).startsWith("sum-");
        assertThat(s.path("generation").asInt()).isEqualTo(1);
        List<String> refs = new ArrayList<>();
        s.path("source_refs").forEach(r -> refs.add(r.asText()));
        List<String> firstTwenty = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            firstTwenty.add("t" + i);
        }
        assertThat(refs).isEqualTo(firstTwenty);
        int compacted = refs.size();
        double align = s.path("q_align").asDouble();
        double cover = s.path("q_cover").asDouble();
        assertThat(s.path("confidence").asDouble()).isEqualTo(Math.max(0, Math.min(1, (align + cover) / 2)));
        assertThat(s.path("decay_rate").asDouble()).isEqualTo(1 - s.path("confidence").asDouble());
        assertThat(s.path("summary_tokens").asInt()).isLessThan(s.path("source_tokens").asInt());
        // the tail: the last raw turns, verbatim, after the compacted ones
        JsonNode tail = json.path("tail");
        assertThat(tail.size()).isBetween(4, 40 - compacted);
        assertThat(tail.get(tail.size() - 1).path("turn_id").asText()).isEqualTo("t39");
        assertThat(tail.get(tail.size() - 1).path("text").asText()).isEqualTo(topics[39 % 5]);
    }

    private static final String GOOD = "{\"schema\":\"turn.v1\",\"tenant_id\":\"acme\",\"session_id\":\"s1\","
            + "\"turn_id\":\"t0\",\"seq\":0,\"role\":\"user\",\"text\":\"ok\",\"ts\":\"2026-11-01T10:00:00Z\"}";

    @Test
    void malformedLinesAreRefusedWithTheLineNumber() throws Exception {
        Path file = dir.resolve("bad.jsonl");
        Files.writeString(file, GOOD + "\n{not json\n");
        CliRun run = CliRun.of("compact", "--session", file.toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).startsWith("engram compact: line 2: invalid_json: invalid JSON: ");
    }

    @Test
    void aTimestampInEpochMillisecondsIsRefusedWithTheLineAndTheFieldNotAStackTrace() throws Exception {
        Path file = dir.resolve("epoch.jsonl");
        Files.writeString(file, GOOD + "\n" + GOOD.replace("t0", "t1").replace("\"2026-11-01T10:00:00Z\"", "1761991200000") + "\n");
        CliRun run = CliRun.of("compact", "--session", file.toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).startsWith("engram compact: line 2: schema_violation: turn.v1: ").contains("ts: integer found, string expected")
                .doesNotContain("Exception").doesNotContain("\tat ");
    }
}
