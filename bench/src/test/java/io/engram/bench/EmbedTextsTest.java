package io.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;

class EmbedTextsTest {

    private static SimpleCounter counted(long n) {
        SimpleCounter c = new SimpleCounter();
        c.inc(n);
        return c;
    }

    @Test
    void sumsTheEmbeddingCountersOfTheJobsSinceTheMarkEvenAfterTheyEnded() {
        EmbedTexts reporter = new EmbedTexts();
        UnregisteredMetricsGroup group = new UnregisteredMetricsGroup();
        reporter.notifyOfAddedMetric(counted(5), "embed_model_texts", group); // an earlier job
        Map<String, Integer> mark = EmbedTexts.mark();
        SimpleCounter model = counted(258);
        reporter.notifyOfAddedMetric(model, "embed_model_texts", group);
        reporter.notifyOfAddedMetric(counted(612), "embed_texts", group);
        reporter.notifyOfAddedMetric(counted(380), "embed_vectors", group);
        reporter.notifyOfAddedMetric(counted(7), "records_in", group); // not an embedding counter
        reporter.notifyOfRemovedMetric(model, "embed_model_texts", group); // the job ended
        assertThat(EmbedTexts.since(mark)).isEqualTo(new EmbedTexts.Counts(612, 258, 380));
    }
}
