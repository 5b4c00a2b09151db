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
 * A task failure mid-stream: the writing task fails when OpenSearch refuses the 6th bulk request for good,
 * restores from its last checkpoint and replays; the final contents equal the failure-free run's.
 */
class PipelineEndToEndTest extends EndToEndRuns {

    private Contents after;
    private int injectedFailures;

    @Override
    void variant(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch, EmbeddedPostgreSql postgres,
                 Map<TopicPartition, Long> from) throws Exception {
        try (OutageProxy proxy = new OutageProxy(openSearch.httpUrl(), Integer.MAX_VALUE, 0).failingBulk(6)) {
            after = runThrough(proxy, "e2e-failure", 3, kafka, openSearch, postgres, from);
            injectedFailures = proxy.failed();
        }
    }

    @Test
    void aTaskFailureMidStreamChangesNothing() {
        assertThat(injectedFailures).as("the writing task failed once, mid-stream").isEqualTo(1);
        EndToEndInput.assertSame(after.documents(), plain);
        EndToEndInput.assertSame(after.rows(), rowsPlain);
    }
}
