package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code eval determinism} on a small input in LoCoMo's format that still interleaves partitions and crosses
 * several cycles per tenant: two conversations of four sessions each, days apart (each session's summaries close a
 * cycle of their own), sent conversation after conversation, so each partition holds records months out of order.
 * Run over 2 and over 4 partitions on fresh servers, the two runs leave the same documents and rows. (The large
 * input, all of LoCoMo and runs killed with SIGKILL: docs/benchmarks.md, "Do two runs agree".)
 */
class EvalDeterminismCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] TOPICS = {"the harbour office move", "a grey cat named Pixel", "the violin concert",
            "the observatory job", "tomatoes and basil", "the budget review", "a trip to Lisbon", "the new bicycle"};

    @TempDir
    Path dir;

    private static ArrayNode conversations() {
        ArrayNode samples = JSON.createArrayNode();
        String[][] people = {{"Ann", "Bob"}, {"Cal", "Dee"}};
        for (int c = 0; c < people.length; c++) {
            ObjectNode sample = samples.addObject().put("sample_id", "det-" + (c + 1));
            ObjectNode conversation = sample.putObject("conversation").put("speaker_a", people[c][0])
                    .put("speaker_b", people[c][1]);
            for (int s = 1; s <= 4; s++) {
                // the second conversation is months earlier than the first: sent after it, it is out of order
                conversation.put("session_" + s + "_date_time", "10:00 am on " + (3 * s) + " " + (c == 0 ? "May" : "January")
                        + ", 2023");
                ArrayNode turns = conversation.putArray("session_" + s);
                for (int t = 1; t <= 12; t++) {
                    String topic = TOPICS[(s + t + c) % TOPICS.length];
                    turns.addObject().put("speaker", people[c][t % 2]).put("dia_id", "D" + s + ":" + t)
                            .put("text", (t % 2 == 1 ? "Let me tell you about " : "What happened with ") + topic
                                    + " in session " + s + ", part " + t + "?");
                }
            }
            sample.putArray("qa");
        }
        return samples;
    }

    @Test
    void runsOverTwoAndFourPartitionsLeaveTheSameDocumentsAndRows() throws Exception {
        Path data = dir.resolve("locomo-like.json");
        Files.writeString(data, JSON.writeValueAsString(conversations()));

        CliRun run = CliRun.of("eval", "determinism", "--data", data.toString(), "--partitions", "2,4", "--runs", "1",
                "--work-dir", dir.resolve("runs").toString());

        assertThat(run.exit()).as(run.out() + run.err()).isZero();
        assertThat(run.out()).contains("every run left the same documents and rows")
                .containsPattern("\\n4 +1 +none +\\d+ identical to the reference");
        Matcher cycles = Pattern.compile("cycle_metrics=(\\d+)").matcher(run.out());
        assertThat(cycles.find()).as(run.out()).isTrue();
        assertThat(Integer.parseInt(cycles.group(1))).as("several cycles per tenant").isGreaterThanOrEqualTo(6);
        Matcher documents = Pattern.compile("documents=(\\d+)").matcher(run.out());
        assertThat(documents.find()).isTrue();
        assertThat(Integer.parseInt(documents.group(1))).as("96 turns, their windows and summaries")
                .isGreaterThan(96);
        Matcher entities = Pattern.compile("entities=(\\d+)").matcher(run.out());
        assertThat(entities.find()).as(run.out()).isTrue();
        assertThat(Integer.parseInt(entities.group(1))).as("Pixel and Lisbon in both conversations, each graph compared")
                .isGreaterThanOrEqualTo(4);
    }
}
