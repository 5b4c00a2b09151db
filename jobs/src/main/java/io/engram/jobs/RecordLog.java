package io.engram.jobs;

import io.engram.jobs.ingest.RejectRecord;
import io.engram.jobs.store.ForgetCompleted;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The job's log lines about one record, at INFO: each carries the record's tenant and source coordinates as
 * context (SLF4J's MDC), which {@code logging.format=json} and any JSON layout write as fields of their own
 * (docs/operations.md, "Logs"), so a line is found by tenant or offset without parsing its message.
 */
public final class RecordLog {

    private static final Logger LOG = LoggerFactory.getLogger(RecordLog.class);

    private RecordLog() {
    }

    /** An input rejected: its reason and where it came from. */
    public static void rejected(RejectRecord reject) {
        Map<String, String> context = new LinkedHashMap<>();
        context.put("tenant_id", reject.tenantId()); // null when the input named none readable
        context.put("source_topic", reject.sourceTopic());
        context.put("partition", String.valueOf(reject.partition()));
        context.put("offset", String.valueOf(reject.offset()));
        context.put("reason_code", reject.reasonCode());
        info(context, "rejected {}/{}/{}: {}: {}", reject.sourceTopic(), reject.partition(), reject.offset(),
                reject.reasonCode(), reject.message());
    }

    /** A forget applied: what it covered and how many records left OpenSearch. */
    public static void forgotten(ForgetCompleted forget) {
        Map<String, String> context = new LinkedHashMap<>();
        context.put("tenant_id", forget.tenantId());
        context.put("forget_id", forget.forgetId());
        info(context, "forget {} of {} {} removed {} records", forget.forgetId(), forget.scope(), forget.target(),
                forget.recordsRemoved());
    }

    /** A memory's supersedes edges refused because each would close a cycle (both memories stay). */
    public static void refusedSupersede(String tenantId, String recordId, java.util.List<String> targets) {
        Map<String, String> context = new LinkedHashMap<>();
        context.put("tenant_id", tenantId);
        info(context, "supersede of {} by {} refused: it would close a cycle", targets, recordId);
    }

    private static void info(Map<String, String> context, String message, Object... arguments) {
        if (!LOG.isInfoEnabled()) {
            return;
        }
        context.values().removeIf(java.util.Objects::isNull);
        context.forEach(MDC::put);
        try {
            LOG.info(message, arguments);
        } finally {
            context.keySet().forEach(MDC::remove);
        }
    }
}
