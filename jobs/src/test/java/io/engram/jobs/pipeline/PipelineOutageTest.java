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
 * OpenSearch unavailable for a while mid-stream: after the first bulk request it refuses six in a row (429 and
 * 503), the writer backs off for several seconds while the inputs queue up, no task fails, and the final
 * contents equal the undisturbed run's.
 */
class PipelineOutageTest extends EndToEndRuns {

    private Contents after;
    private int refusals;

    @Override
    void variant(EmbeddedKafka kafka, EmbeddedOpenSearch openSearch, EmbeddedPostgreSql postgres,
                 Map<TopicPartition, Long> from) throws Exception {
        try (OutageProxy proxy = new OutageProxy(openSearch.httpUrl(), 1, 6)) {
            after = runThrough(proxy, "e2e-outage", 0, kafka, openSearch, postgres, from);
            refusals = proxy.refused();
        }
    }

    @Test
    void anOpenSearchOutageBacksThePipelineUpAndChangesNothing() {
        assertThat(refusals).isEqualTo(6);
        EndToEndInput.assertSame(after.documents(), plain);
        EndToEndInput.assertSame(after.rows(), rowsPlain);
    }
}
