package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.service.ResponsesJson;
import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.EmbeddedServicesExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The evaluation end to end on a tiny conversation in LoCoMo's format, with known answers: its turns go to Kafka,
 * through the pipeline, into OpenSearch, and the questions are answered by the read API's code.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class EvalLocomoCommandTest {

    @TempDir
    Path dir;

    @Test
    void evaluatesASmallSliceThroughThePipelineAndCountsMalformedEvidence(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch,
                                                                         EmbeddedPostgreSql postgres) throws Exception {
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
                    {"question": "Nothing usable", "answer": "-", "evidence": ["D:"], "category": 1}]},
                 {"sample_id": "tiny-2",
                  "conversation": {"speaker_a": "Cal", "speaker_b": "Dee",
                    "session_1_date_time": "9:00 am on 2 June, 2023",
                    "session_1": [
                      {"speaker": "Cal", "dia_id": "D1:1", "text": "I planted tomatoes and basil in the garden."},
                      {"speaker": "Dee", "dia_id": "D1:2", "text": "Nice, do they get enough sun?"},
                      {"speaker": "Cal", "dia_id": "D1:3", "text": "Yes, it faces south."}]},
                  "qa": [
                    {"question": "What did Cal plant?", "answer": "tomatoes and basil", "evidence": ["D1:1"], "category": 4}]}]
                """);
        Path config = dir.resolve("pipeline.properties");
        Files.writeString(config, String.join("\n",
                "kafka.bootstrap=" + kafka.bootstrapServers(),
                "opensearch.url=" + openSearch.httpUrl(),
                "postgres.url=" + postgres.jdbcUrl(),
                "checkpoint.interval=500ms",
                "parallelism=1",
                "flink.restart-strategy.type=none"));

        CliRun run = CliRun.of("eval", "locomo", "--data", file.toString(), "--json", "--k", "3",
                "--config", config.toString(), "--leave-one-out");

        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode result = ResponsesJson.JSON.readTree(run.out());
        assertThat(result.path("embedding_model").asText()).isEqualTo("bge-small-en-v1.5-q");
        assertThat(result.path("turns").asInt()).isEqualTo(8);
        // category 5 is not asked; the question whose only evidence id is broken is skipped and counted
        assertThat(result.path("questions").asInt()).isEqualTo(3);
        assertThat(result.at("/per_conversation/tiny-1/questions").asInt()).isEqualTo(2);
        assertThat(result.at("/per_conversation/tiny-2/questions").asInt()).isEqualTo(1);
        assertThat(result.path("questions_without_evidence").asInt()).isEqualTo(1);
        assertThat(result.path("malformed_evidence_ids").asInt()).isEqualTo(2);
        // a few turns fit any budget: every retriever that returns them all finds every evidence turn ...
        for (String retriever : new String[] {"vector", "fused", "rescored"}) {
            assertThat(result.at("/overall/" + retriever + "/within_2000").asDouble())
                    .as(retriever).isCloseTo(1.0, within(1e-9));
        }
        // ... but BM25 returns only turns sharing a word with the question: "That sounds amazing, you love
        // telescopes" shares none with "Where does Bob start his new job?" (stop words are not indexed), so the
        // second question gets 1 of 2 -> (1 + 0.5) / 2 in tiny-1; "plant" finds "planted" in tiny-2
        assertThat(result.at("/per_conversation/tiny-1/bm25/within_2000").asDouble()).isCloseTo(0.75, within(1e-9));
        assertThat(result.at("/overall/bm25/within_2000").asDouble()).isCloseTo(2.5 / 3, within(1e-9));
        // the context keeps the cat's turn and, as its neighbour, the answer to the job question's turn
        assertThat(result.at("/overall/context/within_2000").asDouble()).isCloseTo(1.0, within(1e-9));
        assertThat(result.at("/per_category/4/questions").asInt()).isEqualTo(3);
        // the turns of sessions on different days: a date line each, counted in the context's tokens; the texts
        // take no more than the vector list's
        double dateTokens = result.at("/overall/context/mean_date_tokens").asDouble();
        assertThat(dateTokens).isPositive();
        assertThat(result.at("/overall/context/mean_tokens").asDouble() - dateTokens).isPositive()
                .isLessThanOrEqualTo(result.at("/overall/vector/mean_tokens").asDouble());
        assertThat(result.at("/ablations/no_neighbours/within_2000").isNumber()).isTrue();
        // nothing was lost, so every loss bucket is empty
        for (String bucket : new String[] {"not_retrieved", "below_cut", "cut_by_budget", "displaced_by_neighbours"}) {
            assertThat(result.at("/overall/losses/within_500/" + bucket).asDouble()).as(bucket).isZero();
            assertThat(result.at("/per_conversation/tiny-2/losses/within_2000/" + bucket).asDouble()).as(bucket).isZero();
        }
        // leave one out: each conversation held out once; every configuration finds everything here, so the
        // default, listed first, keeps its place
        JsonNode folds = result.at("/leave_one_out/context/folds");
        assertThat(folds).hasSize(2);
        assertThat(folds.get(0).path("held_out").asText()).isEqualTo("tiny-1");
        assertThat(folds.get(1).path("held_out").asText()).isEqualTo("tiny-2");
        folds.forEach(f -> assertThat(f.path("chosen").asText()).isEqualTo("default"));
        assertThat(result.at("/leave_one_out/context/within_2000").asDouble()).isCloseTo(1.0, within(1e-9));
        JsonNode retrievers = result.at("/leave_one_out/retriever/folds");
        assertThat(retrievers).hasSize(2);
        assertThat(result.at("/leave_one_out/retriever/recall_at_k").asDouble()).isCloseTo(
                (retrievers.get(0).path("recall_at_k").asDouble() + retrievers.get(1).path("recall_at_k").asDouble()) / 2,
                within(1e-9));
    }
}
