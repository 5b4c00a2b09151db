package io.engram.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** What the meter counts reaches the ledger once, a failed flush's counts with the next. */
class UsageMeterTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-07T23:00:00Z"), ZoneOffset.UTC);
    private static final LocalDate DAY = LocalDate.parse("2026-12-07");

    /** The in-memory ledger, failing its additions while {@link #down} is set. */
    private static final class FlakyLedger implements UsageLedger {
        final InMemoryUsageLedger ledger = new InMemoryUsageLedger();
        final AtomicBoolean down = new AtomicBoolean();

        @Override
        public List<Usage> add(List<Usage> increments) throws SQLException {
            if (down.get()) {
                throw new SQLException("PostgreSQL is away");
            }
            return ledger.add(increments);
        }

        @Override
        public List<Usage> rows(String tenantId, LocalDate from, LocalDate to) {
            return ledger.rows(tenantId, from, to);
        }

        @Override
        public void close() {
        }
    }

    @Test
    void countsOfAFailedFlushGoWithTheNextAndNothingIsAddedTwice() throws Exception {
        FlakyLedger flaky = new FlakyLedger();
        try (UsageMeter meter = new UsageMeter(flaky, CLOCK, true)) {
            meter.wrote("acme", 3, 120);
            meter.read("acme", true, 7_400_000);
            flaky.down.set(true);
            assertThatThrownBy(meter::flush).isInstanceOf(SQLException.class);
            meter.wrote("acme", 1, 10);
            meter.forgot("acme");
            assertThat(meter.bytesToday("acme")).as("the ledger's none, and 130 not flushed").isEqualTo(130);
            flaky.down.set(false);
            meter.flush();
            meter.flush(); // nothing new: adds nothing
            assertThat(flaky.rows("acme", DAY, DAY)).containsExactly(
                    new UsageLedger.Usage("acme", DAY, 4, 130, 2, 1, 1, 1, 7));
            assertThat(meter.bytesToday("acme")).isEqualTo(130);
        }
    }

    @Test
    void aMeterTurnedOffCountsNothing() throws Exception {
        FlakyLedger flaky = new FlakyLedger();
        try (UsageMeter meter = new UsageMeter(flaky, CLOCK, false)) {
            meter.wrote("acme", 3, 120);
            meter.read("acme", true, 1_000_000);
            meter.flush();
            assertThat(flaky.rows(null, DAY, DAY)).isEmpty();
        }
    }
}
