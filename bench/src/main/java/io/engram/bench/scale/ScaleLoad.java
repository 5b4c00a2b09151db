package io.engram.bench.scale;

import io.engram.bench.scale.ScaleCorpus.EventClock;
import io.engram.bench.scale.ScaleCorpus.Rounds;
import io.engram.bench.scale.ScaleCorpus.Tenant;
import io.engram.client.EngramProducer;
import io.engram.client.Payload;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Produces tenants' records to Kafka as gateways would: each tenant's agent document first, then the tenants take
 * turns, one round (a session and its memories) each, until every one holds its share; event time moves one
 * second per record. Counts what it sent per tenant, and per user of the tenant named to be forgotten from.
 */
final class ScaleLoad {

    private final ScaleCorpus corpus;
    private final EventClock clock;

    ScaleLoad(ScaleCorpus corpus, EventClock clock) {
        this.corpus = corpus;
        this.clock = clock;
    }

    /** What was sent: turns and memories per tenant, and per user of {@code watched}. */
    record Sent(Map<String, Long> byTenant, Map<String, Long> byUserOfWatched) {

        long records() {
            return byTenant.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /** Sends {@code tenants}' documents and records; {@code watched} (or null) is counted per user as well. */
    Sent send(String kafka, List<Tenant> tenants, String watched) {
        Map<String, Long> byTenant = new HashMap<>();
        Map<String, Long> byUser = new HashMap<>();
        try (EngramProducer producer = new EngramProducer(kafka)) {
            Deque<Rounds> turn = new ArrayDeque<>();
            for (Tenant tenant : tenants) {
                producer.send(corpus.document(tenant, clock.next()));
                byTenant.put(tenant.id(), 0L);
                turn.add(new Rounds(tenant));
            }
            while (!turn.isEmpty()) {
                Rounds rounds = turn.poll();
                for (Payload record : rounds.next(clock)) {
                    producer.send(record);
                    String tenant = record.json().get("tenant_id").asText();
                    byTenant.merge(tenant, 1L, Long::sum);
                    if (tenant.equals(watched)) {
                        byUser.merge(record.json().get("user_id").asText(), 1L, Long::sum);
                    }
                }
                if (rounds.hasNext()) {
                    turn.add(rounds);
                }
            }
            producer.flush();
        }
        return new Sent(byTenant, byUser);
    }
}
