package io.engram.service;

import io.engram.client.Importer;
import io.engram.client.Payload;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;

/**
 * Where {@code POST /v1/import} publishes a batch: admitted by the tenant's records and bytes quotas as one write,
 * published through the service's {@link Publisher}, acknowledged by Kafka, then counted as accepted (for the
 * records quota) and metered. A refused batch stops the import; the error says how many records went before it.
 */
final class ImportSink implements Importer.Sink<ApiError> {

    private final String tenant;
    private final Writes writes;
    private final QuotaGate quotas;
    private final UsageMeter meter;
    private long imported;

    ImportSink(String tenant, Writes writes, QuotaGate quotas, UsageMeter meter) {
        this.tenant = tenant;
        this.writes = writes;
        this.quotas = quotas;
        this.meter = meter;
    }

    @Override
    public void publish(List<Payload> batch) throws ApiError {
        long bytes = batch.stream().mapToLong(p -> Writes.textBytes(p.json())).sum();
        try {
            quotas.admitWrite(tenant, batch.size(), bytes);
        } catch (ApiError refused) {
            throw refused.with("records_imported", imported);
        } catch (SQLException e) {
            throw ApiError.of(e, "POST /v1/import").with("records_imported", imported);
        }
        List<Future<?>> sends = new ArrayList<>();
        List<String> storeIds = new ArrayList<>();
        for (Payload payload : batch) {
            sends.add(writes.publisher().send(payload));
            storeIds.add(Writes.storeId(payload.kind(), tenant, payload.json()));
        }
        Writes.awaitAcks(sends);
        imported += batch.size();
        quotas.accepted(tenant, storeIds);
        meter.wrote(tenant, batch.size(), bytes);
    }
}
