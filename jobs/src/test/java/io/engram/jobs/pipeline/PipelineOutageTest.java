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
 * OpenSearch unavailable for a while mid-stream: after the first bulk request it refuses six in a row (429 and
 * 503), the writer backs off for several seconds while the inputs queue up, no task fails, and the final
 * contents equal the undisturbed run's.
 */
class PipelineOutageTest extends EndToEndRuns {

    private Map<String, List<String>> afterOutage;
    private Map<String, List<String>> rowsAfterOutage;
    private int refusals;

    @Override
    void variant(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch, EmbeddedPostgreSql postgres,
                 Map<TopicPartition, Long> from) throws Exception {
        try (OutageProxy proxy = new OutageProxy(openSearch.httpUrl(), 1, 6)) {
            PipelineConfig outage = PipelineRun.config(kafka, proxy.url(), postgres, "engram-memories-e2e-outage",
                    "e2e-outage");
            PipelineRun.run(outage, PipelineRun.source(outage, from), EngramPipeline.sinks(outage), 0);
            refusals = proxy.refused();
            try (OpenSearchMemoryStore s = new OpenSearchMemoryStore(openSearch.httpUrl(), outage.index(), RetryPolicy.DEFAULT)) {
                afterOutage = snapshot(s);
            }
        }
        rowsAfterOutage = rows(postgres, false);
    }

    @Test
    void anOpenSearchOutageBacksThePipelineUpAndChangesNothing() {
        assertThat(refusals).isEqualTo(6);
        assertSame(afterOutage, plain);
        assertSame(rowsAfterOutage, rowsPlain);
    }
}
