package io.engram.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import io.engram.service.ResponsesJson;
import org.junit.jupiter.api.Test;

/**
 * The knowledge-update evaluation end to end at a small size: the live product takes the workload through
 * {@code POST /v1/memories} and the pipeline, and answers every fact through {@code POST /v1/context}.
 */
class EvalUpdatesCommandTest {

    @Test
    void aSmallWorkloadThroughTheLiveProductHasItsCurrentAndPastValuesAndItsNotesExpire() throws Exception {
        CliRun run = CliRun.of("eval", "updates", "--users", "4", "--facts-per-user", "3",
                "--seed", "5", "--expires-in", "5", "--supersession", "on", "--json");

        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode result = ResponsesJson.JSON.readTree(run.out());
        FactUpdates.Workload workload = FactUpdates.generate(5, 4, 3, EvalUpdatesCommand.OTHER_PER_USER);
        assertThat(result.path("facts").asInt()).isEqualTo(12);
        assertThat(result.path("memories").asInt()).isEqualTo(workload.memories().size());
        JsonNode on = result.path("supersession_on");
        assertThat(on.path("unmarked").asInt()).isZero();
        assertThat(on.at("/current/questions").asInt()).isEqualTo(12);
        assertThat(on.at("/current/right").asDouble()).isCloseTo(1.0, within(1e-9));
        assertThat(on.at("/as_of/questions").asInt()).isEqualTo(result.path("updates").asInt());
        assertThat(on.at("/as_of/right").asDouble()).isCloseTo(1.0, within(1e-9));
        // every note goes once event time passes its expiry (how soon is the eval's to measure, not a test's)
        assertThat(on.at("/expiry/gone").asInt()).isEqualTo(4);
        assertThat(on.at("/expiry/max_seconds_after_expiry").asDouble()).isNotNaN();
        assertThat(result.has("supersession_off")).isFalse();
    }

    @Test
    void aSizeBeyondTheGeneratorsListsIsOneLineNamingTheOptions() {
        CliRun run = CliRun.of("eval", "updates", "--users", "500");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains("--users, --facts-per-user: 1–70 users");
    }
}
