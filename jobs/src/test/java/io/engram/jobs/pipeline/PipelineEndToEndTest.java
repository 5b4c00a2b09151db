package io.engram.jobs.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.jobs.EngramPipeline;
import io.engram.jobs.PipelineConfig;
import io.engram.jobs.store.OpenSearchMemoryStore;
import io.engram.jobs.store.OutageProxy;
import io.engram.jobs.store.RetryPolicy;
import io.engram.stack.EmbeddedKafka;
import io.engram.stack.EmbeddedOpenSearch;
import io.engram.stack.EmbeddedPostgreSql;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A task failure mid-stream: the writing task fails when OpenSearch refuses the 6th bulk request for good,
 * restores from its last checkpoint and replays; the final contents equal the failure-free run's.
 */
class PipelineEndToEndTest extends EndToEndRuns {

    private Map<String, List<String>> afterFailure;
    private Map<String, List<String>> rowsAfterFailure;
    private int injectedFailures;

    @Override
    void variant(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch, EmbeddedPostgreSql postgres,
                 Map<TopicPartition, Long> from) throws Exception {
        try (OutageProxy proxy = new OutageProxy(openSearch.httpUrl(), Integer.MAX_VALUE, 0).failingBulk(6)) {
            PipelineConfig failing = PipelineRun.config(kafka, proxy.url(), postgres, "engram-memories-e2e-failure",
                    "e2e-failure");
            PipelineRun.run(failing, PipelineRun.source(failing, from), EngramPipeline.sinks(failing), 3);
            injectedFailures = proxy.failed();
            try (OpenSearchMemoryStore s = new OpenSearchMemoryStore(openSearch.httpUrl(), failing.index(), RetryPolicy.DEFAULT)) {
                afterFailure = snapshot(s);
            }
        }
        rowsAfterFailure = rows(postgres, false);
    }

    @Test
    void aTaskFailureMidStreamChangesNothing() {
        assertThat(injectedFailures).as("the writing task failed once, mid-stream").isEqualTo(1);
        assertSame(afterFailure, plain);
        assertSame(rowsAfterFailure, rowsPlain);
    }
}
