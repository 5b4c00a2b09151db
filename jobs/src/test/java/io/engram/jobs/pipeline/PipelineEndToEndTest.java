package io.engram.jobs.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.OutageProxy;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Task failures mid-stream: the writing task fails when OpenSearch refuses the 6th bulk request for good, and
 * again when the answer to the forget's delete-by-query is lost after OpenSearch deleted (the forget half done
 * as far as the job knows); each time it restores from its last checkpoint and replays. The final contents equal
 * the failure-free run's, and the forget is recorded once with the same count.
 */
class PipelineEndToEndTest extends EndToEndRuns {

    private Contents after;
    private int injectedFailures;

    @Override
    void variant(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch, EmbeddedPostgreSql postgres,
                 Map<TopicPartition, Long> from) throws Exception {
        try (OutageProxy proxy = new OutageProxy(openSearch.httpUrl(), Integer.MAX_VALUE, 0).failingBulk(6)
                .failingDeleteByQuery(1, "\"user_id\":\"gone\"")) {
            after = runThrough(proxy, "e2e-failure", 3, kafka, openSearch, postgres, from);
            injectedFailures = proxy.failed();
        }
    }

    @Test
    void aTaskFailureMidStreamChangesNothing() {
        assertThat(injectedFailures).as("the writing task failed twice, mid-stream").isEqualTo(2);
        EndToEndInput.assertSame(after.documents(), plain);
        EndToEndInput.assertSame(after.rows(), rowsPlain);
    }
}
