package io.engram.jobs.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.OutageProxy;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

/**
 * Task failures mid-stream: the writing task fails when OpenSearch refuses the 6th bulk request for good, again
 * when the answer to the user forget's delete-by-query is lost after OpenSearch deleted (the forget half done as
 * far as the job knows), and again when the answer to vandelay's deletion is lost the same way; each time it
 * restores from its last checkpoint and replays. The final contents equal the failure-free run's, and each forget
 * is recorded once.
 */
class PipelineEndToEndTest extends EndToEndRuns {

    private Contents after;
    private int injectedFailures;
    private List<String> deletionPlain;
    private List<String> deletionAfter;

    @Override
    void variant(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch, EmbeddedPostgreSql postgres,
                 Map<TopicPartition, Long> from) throws Exception {
        deletionPlain = EndToEndInput.takeForgets(postgres, EndToEndInput.VANDELAY); // so the next row is this run's
        try (OutageProxy proxy = new OutageProxy(openSearch.httpUrl(), Integer.MAX_VALUE, 0).failingBulk(6)
                .failingDeleteByQuery(1, "\"user_id\":\"gone\"")
                .failingDeleteByQuery(1, EndToEndInput.DELETION_BODY)) {
            after = runThrough(proxy, "e2e-failure", 3, kafka, openSearch, postgres, from);
            injectedFailures = proxy.failed();
        }
        deletionAfter = EndToEndInput.takeForgets(postgres, EndToEndInput.VANDELAY);
    }

    @Test
    void aTaskFailureMidStreamChangesNothing() {
        assertThat(injectedFailures).as("the writing task failed three times, mid-stream").isEqualTo(3);
        EndToEndInput.assertSame(after.documents(), plain);
        EndToEndInput.assertSame(after.rows(), rowsPlain);
    }

    /**
     * The deletion whose answer was lost completes after the restart: one row, completed, and nothing of the
     * tenant in the store; every other tenant's records are the failure-free run's ({@link
     * #aTaskFailureMidStreamChangesNothing}). How many records the row counts depends on how many of the
     * tenant's records the replay wrote again before it deleted them, so it is not compared.
     */
    @Test
    void aTenantDeletionInterruptedByAFailureCompletesOnceAfterTheRestart() {
        String row = "forget-vandelay|tenant|" + EndToEndInput.VANDELAY + "|completed|";
        assertThat(deletionPlain).singleElement(InstanceOfAssertFactories.STRING).startsWith(row);
        assertThat(deletionAfter).singleElement(InstanceOfAssertFactories.STRING).startsWith(row);
        assertThat(after.documents().get(EndToEndInput.VANDELAY)).isEmpty();
        assertThat(after.documents().get(ACME)).as("acme's own s1, u1 and AGENTS.md").isEqualTo(plain.get(ACME))
                .isNotEmpty();
    }
}
