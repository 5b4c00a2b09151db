package io.engram.bench.scale;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.engram.bench.RawHttp;
import io.engram.client.EngramProducer;
import io.engram.client.Payload;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A cycle close of the largest tenant: a gateway memory with a new cycle id closes the open one, and the collapse
 * detector scores it (canaries ranked over the tenant's store shape); timed from the send until its
 * {@code cycle_metrics} row is in PostgreSQL.
 */
final class CycleClose {

    private CycleClose() {
    }

    /** Two memories the bench adds to the tenant this way, of a user it does not forget. */
    static final int MEMORIES = 2;

    private static Payload memory(ScaleCorpus.Tenant tenant, String cycle, String id, Instant ts) {
        Payload memory = Payload.memory(tenant.id(), id, "memory", "A note of cycle " + cycle + ".", List.of(), 0, cycle, ts);
        memory.json().put("user_id", tenant.user(1)); // not the user the bench forgets
        return memory;
    }

    /** Opens cycle {@code cycle} with one memory, then closes it with a memory of the next: the time to its row. */
    static ObjectNode measure(RunSettings.Servers servers, ScaleCorpus.Tenant tenant, String cycle, Instant ts)
            throws SQLException, InterruptedException {
        long started;
        try (EngramProducer producer = new EngramProducer(servers.kafka())) {
            producer.send(memory(tenant, cycle, "m-" + cycle, ts));
            producer.flush();
            started = System.nanoTime();
            producer.send(memory(tenant, cycle + "-next", "m-" + cycle + "-next", ts.plusSeconds(1)));
            producer.flush();
        }
        long deadline = started + TimeUnit.MINUTES.toNanos(10);
        try (Connection c = DriverManager.getConnection(servers.postgres(), "postgres", "");
             PreparedStatement row = c.prepareStatement("SELECT close_reason FROM cycle_metrics WHERE tenant_id = ? AND cycle_id = ?")) {
            row.setString(1, tenant.id());
            row.setString(2, cycle);
            while (true) {
                try (ResultSet rs = row.executeQuery()) {
                    if (rs.next()) {
                        return RawHttp.JSON.createObjectNode().put("tenant", tenant.id()).put("cycle", cycle)
                                .put("seconds_to_row", (System.nanoTime() - started) / 1e9).put("close_reason", rs.getString(1));
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("cycle " + cycle + " of " + tenant.id() + " did not close within 10 minutes");
                }
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
    }
}
