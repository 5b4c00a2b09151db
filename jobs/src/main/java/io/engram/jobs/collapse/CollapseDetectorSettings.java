package io.engram.jobs.collapse;

import io.engram.jobs.PipelineConfig;
import io.engram.model.collapse.CollapseConfig;
import java.io.Serializable;
import java.time.Duration;

/**
 * The detector's thresholds and canary sizes, the quiet gap that closes a cycle, whether metrics are on, and
 * how many shape entries it may hold on the heap between barriers (all tenants together; one tenant larger
 * than that is still held whole while it is written to), and how long after a change came the wall clock applies
 * it when event time has not passed it (null: never).
 */
public record CollapseDetectorSettings(CollapseConfig collapse, Duration quietGap, boolean metricsEnabled,
                                       long heldShapeRecords, Duration wallClockGrace) implements Serializable {

    /** Entries held on the heap by default: above the largest tenant planned for (100,000 records), "Sizing". */
    public static final long HELD_SHAPE_RECORDS = 150_000;

    /**
     * The pipeline's settings. A live run's waiting changes are applied by the wall clock the out-of-orderness
     * and idleness after they came, when event time has not passed them (a quiet input moves no watermark); a
     * bounded run's wait for its end.
     */
    public static CollapseDetectorSettings of(PipelineConfig config) {
        return new CollapseDetectorSettings(config.collapse(), config.quietGap(), config.metricsEnabled(),
                HELD_SHAPE_RECORDS, config.bounded() ? null : config.outOfOrderness().plus(config.sourceIdleness()));
    }
}
