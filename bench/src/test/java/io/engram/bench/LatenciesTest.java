package io.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LatenciesTest {

    @Test
    void nearestRankPercentilesOfUnsortedSamples() {
        double[] samples = new double[100];
        for (int i = 0; i < 100; i++) {
            samples[i] = 100 - i; // 100 … 1
        }
        Latencies l = Latencies.of("search", samples);
        assertThat(l.percentile(0.50)).isEqualTo(50);
        assertThat(l.percentile(0.95)).isEqualTo(95);
        assertThat(l.percentile(0.99)).isEqualTo(99);
        assertThat(l.max()).isEqualTo(100);
        assertThat(Latencies.of("one", new double[] {7}).percentile(0.99)).isEqualTo(7);
    }

    @Test
    void noSampleIsAClearErrorNotAnIndexOutOfBounds() {
        assertThatThrownBy(() -> Latencies.of("freshness", new double[0]))
                .isInstanceOf(IllegalStateException.class).hasMessage("freshness: no sample was measured");
    }
}
