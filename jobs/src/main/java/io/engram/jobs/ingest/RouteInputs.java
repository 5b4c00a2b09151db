package io.engram.jobs.ingest;

import io.engram.jobs.EngramMetrics;
import io.engram.jobs.RecordLog;
import io.engram.jobs.compaction.TurnEvent;
import io.engram.jobs.documents.DocEvent;
import io.engram.jobs.store.StoreOp;
import java.util.Locale;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Splits ingested records by kind: gateway memories as store changes (main output), turns, documents, forgets,
 * rejects. Counts every record read by topic and kind, and every reject by reason; the job's result holds the
 * number read ({@link #RECORDS_READ}, what {@code ./engram run} reports when a bounded run ends).
 */
public final class RouteInputs extends ProcessFunction<Ingested, StoreOp> {

    private static final long serialVersionUID = 1L;

    public static final OutputTag<TurnEvent> TURNS = new OutputTag<>("turns", TypeInformation.of(TurnEvent.class));
    public static final OutputTag<DocEvent> DOCS = new OutputTag<>("docs", TypeInformation.of(DocEvent.class));
    public static final OutputTag<ForgetEvent> FORGETS = new OutputTag<>("forgets", TypeInformation.of(ForgetEvent.class));
    public static final OutputTag<RejectRecord> REJECTS = new OutputTag<>("rejects", TypeInformation.of(RejectRecord.class));

    /** The accumulator counting every record read, rejects included. */
    public static final String RECORDS_READ = "engram-records-read";

    private final boolean metricsEnabled;
    private transient EngramMetrics metrics;
    private transient LongCounter read;

    public RouteInputs(boolean metricsEnabled) {
        this.metricsEnabled = metricsEnabled;
    }

    @Override
    public void open(OpenContext context) {
        metrics = EngramMetrics.of(getRuntimeContext().getMetricGroup(), metricsEnabled);
        read = getRuntimeContext().getLongCounter(RECORDS_READ);
    }

    @Override
    public void processElement(Ingested in, Context ctx, Collector<StoreOp> out) {
        read.add(1);
        metrics.counter(EngramMetrics.RECORDS_IN, "topic", in.sourceTopic(), "kind",
                in.kind().name().toLowerCase(Locale.ROOT)).inc();
        if (in.rejected()) {
            metrics.counter(EngramMetrics.REJECTS, "reason", in.reasonCode()).inc();
            RejectRecord reject = in.toReject();
            RecordLog.rejected(reject);
            ctx.output(REJECTS, reject);
            return;
        }
        switch (in.kind()) {
            case TURN -> ctx.output(TURNS, Payloads.turn(in));
            case DOC -> ctx.output(DOCS, Payloads.doc(in));
            case MEMORY -> out.collect(Payloads.memory(in));
            case FORGET -> ctx.output(FORGETS, Payloads.forget(in));
        }
    }
}
