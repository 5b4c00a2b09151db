package io.engram.model.facts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.engram.model.retrieval.RecordType;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetentionTest {

    private static final Duration DAY = Duration.ofDays(1);

    @Test
    void aRecordGoesAtTheFirstWholeMinuteAfterItsAgeAndTheSweepCoversIt() {
        long ts = 90_500; // 00:01:30.5
        long sweep = Retention.sweepAt(ts, DAY);
        assertThat(sweep).isEqualTo(DAY.toMillis() + 120_000);
        assertThat(ts).isLessThan(Retention.cutoff(sweep, DAY));
        assertThat(Retention.sweepAt(60_000, DAY)).as("exactly on a minute").isEqualTo(DAY.toMillis() + 60_000);
        assertThat(60_000L).isLessThan(Retention.cutoff(DAY.toMillis() + 60_000, DAY));
        assertThat(60_001L).as("one ms younger waits for the next sweep")
                .isGreaterThanOrEqualTo(Retention.cutoff(DAY.toMillis() + 60_000, DAY));
    }

    @Test
    void eachTypeHasItsAgeAndDocumentsStay() {
        Retention r = new Retention(DAY, null, Duration.ofDays(30));
        assertThat(r.maxAge(RecordType.TURN)).isEqualTo(DAY);
        assertThat(r.maxAge(RecordType.SUMMARY)).isNull();
        assertThat(r.maxAge(RecordType.LESSON)).isEqualTo(Duration.ofDays(30));
        assertThat(r.maxAge(RecordType.INVARIANT)).isNull();
        assertThatThrownBy(() -> new Retention(Duration.ZERO, null, null)).hasMessageContaining("positive");
    }
}
