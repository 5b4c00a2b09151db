package io.engram.service;

import io.engram.model.collapse.CycleMetrics;
import java.sql.SQLException;
import java.util.List;

/** The detector's cycle rows as the service reads them ({@code cycle_metrics}, {@link ServiceDatabase}). */
interface CycleSource {

    /** The tenant's newest {@code limit} cycle rows, oldest first. */
    List<CycleMetrics> newest(String tenantId, int limit) throws SQLException;

    /**
     * Up to {@code limit} tenants with cycle rows, in order, from the first after {@code after} ("" for the first
     * page): an operator's console lists them, a page at a time.
     */
    List<String> tenants(String after, int limit) throws SQLException;
}
