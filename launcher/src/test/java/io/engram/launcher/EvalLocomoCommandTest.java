package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedServicesExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The evaluation end to end on a tiny conversation in LoCoMo's format, with known answers. */
@ExtendWith(EmbeddedServicesExtension.class)
class EvalLocomoCommandTest {

    @TempDir
    Path dir;

    @Test
    void evaluatesASmallSliceAndCountsMalformedEvidence(EmbeddedOpenSearch openSearch) throws Exception {
        Path file = dir.resolve("locomo-slice.json");
        Files.writeString(file, """
                [{"sample_id": "tiny-1",
                  "conversation": {"speaker_a": "Ann", "speaker_b": "Bob",
                    "session_1_date_time": "1:56 pm on 8 May, 2023",
                    "session_1": [
                      {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a grey cat named Pixel last week."},
                      {"speaker": "Bob", "dia_id": "D1:2", "text": "Congratulations! How is she settling in?"},
                      {"speaker": "Ann", "dia_id": "D1:3", "text": "She sleeps on my keyboard all day."}],
                    "session_2_date_time": "10:00 am on 20 May, 2023",
                    "session_2": [
                      {"speaker": "Bob", "dia_id": "D2:1", "text": "I start my new job at the observatory on Monday."},
                      {"speaker": "Ann", "dia_id": "D2:2", "text": "That sounds amazing, you love telescopes."}]},
                  "qa": [
                    {"question": "What is the name of Ann's cat?", "answer": "Pixel", "evidence": ["D1:1"], "category": 4},
                    {"question": "Where does Bob start his new job?", "answer": "the observatory", "evidence": ["D2:1; D2:2"], "category": 4},
                    {"question": "Adversarial", "answer": "-", "evidence": ["D1:2"], "category": 5},
                    {"question": "Nothing usable", "answer": "-", "evidence": ["D:"], "category": 1}]}]
                """);
        StringWriter out = new StringWriter();
        CommandLine cli = EngramCli.commandLine();
        cli.setOut(new PrintWriter(out));
        int exit = cli.execute("eval", "locomo", "--data", file.toString(), "--json", "--k", "3",
                "--opensearch", openSearch.httpUrl());
        assertThat(exit).isZero();
        JsonNode result = ResponsesJson.JSON.readTree(out.toString());
        // category 5 is not asked; the question whose only evidence id is broken is skipped and counted
        assertThat(result.path("questions").asInt()).isEqualTo(2);
        assertThat(result.path("questions_without_evidence").asInt()).isEqualTo(1);
        assertThat(result.path("malformed_evidence_ids").asInt()).isEqualTo(2);
        // five turns fit any budget: every retriever that returns them all finds every evidence turn ...
        for (String retriever : new String[] {"vector", "fused", "fused+rescored", "context"}) {
            assertThat(result.at("/overall/" + retriever + "/recall_within_2000").asDouble())
                    .as(retriever).isCloseTo(1.0, within(1e-9));
        }
        // ... but BM25 returns only turns sharing a word with the question: "you love telescopes" shares none
        // with "Where does Bob start his new job?", so the second question gets 1 of 2 -> (1 + 0.5) / 2
        assertThat(result.at("/overall/bm25/recall_within_2000").asDouble()).isCloseTo(0.75, within(1e-9));
        assertThat(result.at("/categories/4/questions").asInt()).isEqualTo(2);
        assertThat(result.path("mean_context_tokens").asDouble()).isPositive();
    }
}
