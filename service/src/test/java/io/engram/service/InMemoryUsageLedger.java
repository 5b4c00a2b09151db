package io.engram.service;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** {@link UsageLedger} in memory, for the service's unit tests; {@link TenantStoreContractTest} holds it to PostgreSQL's. */
final class InMemoryUsageLedger implements UsageLedger {

    private final Map<String, Usage> rows = new TreeMap<>();

    @Override
    public synchronized List<Usage> add(List<Usage> increments) {
        List<Usage> totals = new ArrayList<>();
        for (Usage u : increments) {
            Usage old = rows.getOrDefault(u.tenantId() + " " + u.day(), new Usage(u.tenantId(), u.day(), 0, 0, 0, 0, 0, 0, 0));
            Usage sum = new Usage(u.tenantId(), u.day(), old.recordsWritten() + u.recordsWritten(),
                    old.bytesWritten() + u.bytesWritten(), old.writes() + u.writes(), old.reads() + u.reads(),
                    old.contexts() + u.contexts(), old.forgets() + u.forgets(), old.embedMillis() + u.embedMillis());
            rows.put(u.tenantId() + " " + u.day(), sum);
            totals.add(sum);
        }
        return totals;
    }

    @Override
    public synchronized List<Usage> rows(String tenantId, LocalDate from, LocalDate to) {
        return rows.values().stream().filter(u -> (tenantId == null || u.tenantId().equals(tenantId))
                && !u.day().isBefore(from) && !u.day().isAfter(to)).toList();
    }

    @Override
    public void close() {
    }
}
