package io.engram.jobs.ingest;

import io.engram.jobs.compaction.TurnEvent;
import io.engram.jobs.documents.DocEvent;
import io.engram.jobs.store.StoreOp;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/** Splits ingested records by kind: gateway memories as store changes (main output), turns, documents, forgets, rejects. */
public final class RouteInputs extends ProcessFunction<Ingested, StoreOp> {

    private static final long serialVersionUID = 1L;

    public static final OutputTag<TurnEvent> TURNS = new OutputTag<>("turns", TypeInformation.of(TurnEvent.class));
    public static final OutputTag<DocEvent> DOCS = new OutputTag<>("docs", TypeInformation.of(DocEvent.class));
    public static final OutputTag<ForgetEvent> FORGETS = new OutputTag<>("forgets", TypeInformation.of(ForgetEvent.class));
    public static final OutputTag<RejectRecord> REJECTS = new OutputTag<>("rejects", TypeInformation.of(RejectRecord.class));

    @Override
    public void processElement(Ingested in, Context ctx, Collector<StoreOp> out) {
        if (in.rejected()) {
            ctx.output(REJECTS, in.toReject());
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
