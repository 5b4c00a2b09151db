package io.engram.service;

import java.sql.SQLException;
import java.time.LocalDate;
import java.util.List;

/** Where usage per tenant and UTC day adds up across replicas ({@link PostgresUsageLedger}: table {@code usage_daily}). */
interface UsageLedger extends AutoCloseable {

    /** One tenant's usage on one day (or what a replica adds to it). */
    record Usage(String tenantId, LocalDate day, long recordsWritten, long bytesWritten, long writes, long reads,
                 long contexts, long forgets, long embedMillis) {
    }

    /** Adds each row's counts to the day's; returns the day's totals after the addition, in the same order. */
    List<Usage> add(List<Usage> increments) throws SQLException;

    /** The rows of {@code from} to {@code to} (both included), by tenant then day; every tenant's when null. */
    List<Usage> rows(String tenantId, LocalDate from, LocalDate to) throws SQLException;

    @Override
    void close();
}
