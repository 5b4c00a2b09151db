package io.engram.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.engram.schema.SchemaMigrations;
import io.engram.stack.EmbeddedPostgreSql;
import io.engram.stack.EmbeddedServicesExtension;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The webhooks' store: {@link PostgresWebhookStore} against a real PostgreSQL with the product's migrations, and
 * the in-memory one the service's unit tests use, held to the same answers through one story of registrations,
 * queued changes, leases, failures, a pause, a resume and deliveries.
 */
@ExtendWith(EmbeddedServicesExtension.class)
class WebhookStoreContractTest {

    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

    static void clean(EmbeddedPostgreSql postgres) throws Exception {
        try (Connection c = postgres.connect(); Statement s = c.createStatement()) {
            SchemaMigrations.applyPending(c);
            s.execute("TRUNCATE webhooks, webhook_queue, webhook_offsets, webhook_deliveries");
        }
    }

    @Test
    void bothStoresKeepWebhooksTheirQueuesAndLogsAlike(EmbeddedPostgreSql postgres) throws Exception {
        clean(postgres);
        try (WebhookStore real = new PostgresWebhookStore(new Jdbc(postgres.jdbcUrl(), EmbeddedPostgreSql.USER, ""))) {
            List<String> expected = story(new InMemoryWebhookStore());
            assertThat(story(real)).isEqualTo(expected);
        }
    }

    private static WebhookStore.Change change(int partition, long offset, String tenant, String kind) {
        return new WebhookStore.Change(partition, offset, tenant, String.format("%032x", offset), kind,
                "{\"offset\": " + offset + "}");
    }

    /** What the store answers after each step, as text. */
    private static List<String> story(WebhookStore store) throws Exception {
        List<String> seen = new ArrayList<>();
        store.create(new WebhookStore.Webhook("wh_a", "acme", "http://a", Set.of(), "every kind", "s1", T0));
        store.create(new WebhookStore.Webhook("wh_b", "acme", "http://b", Set.of("deleted", "expired"), "", "s2",
                T0.plusSeconds(1)));
        store.create(new WebhookStore.Webhook("wh_g", "globex", "http://g", Set.of(), "", "s3", T0));
        int added = store.enqueue(List.of(change(1, 10, "acme", "deleted"), change(1, 11, "acme", "upserted"),
                change(0, 3, "globex", "upserted"), change(1, 12, "initech", "deleted")), T0);
        int again = store.enqueue(List.of(change(1, 10, "acme", "deleted"), change(1, 13, "acme", "expired")), T0);
        assertThat(added).isEqualTo(4);
        assertThat(again).as("a change queued before is not queued again").isEqualTo(2);
        seen.add(store.list("acme").toString());
        seen.add(store.due("r1", T0, 10).toString());
        seen.add(store.head("wh_a").toString());

        assertThat(store.lease("wh_a", "r1", T0, T0.plusSeconds(60))).isTrue();
        assertThat(store.lease("wh_a", "r2", T0.plusSeconds(59), T0.plusSeconds(119))).as("held by r1").isFalse();
        seen.add(store.due("r2", T0.plusSeconds(1), 10).toString());
        WebhookStore.Queued head = store.head("wh_a").orElseThrow();
        store.failed("wh_a", head, new WebhookStore.Attempt(head.changeId(), head.kind(), 1, 503, "HTTP 503 from http://a",
                T0.plusSeconds(1)), T0.plusSeconds(3), null, 2);
        seen.add(store.find("wh_a").toString());
        seen.add(store.due("r1", T0.plusSeconds(2), 10).toString() + " " + store.due("r1", T0.plusSeconds(3), 10));
        assertThat(store.lease("wh_a", "r2", T0.plusSeconds(61), T0.plusSeconds(121))).as("r1's lease ran out").isTrue();
        head = store.head("wh_a").orElseThrow();
        store.failed("wh_a", head, new WebhookStore.Attempt(head.changeId(), head.kind(), 2, null, "cannot connect to http://a",
                T0.plusSeconds(62)), T0.plusSeconds(64), new WebhookStore.Pause(T0.plusSeconds(62), "cannot connect"), 2);
        store.release("wh_a", "r2");
        seen.add(store.find("wh_a").toString());
        seen.add(store.due("r2", T0.plusSeconds(100), 10).toString());
        assertThat(store.lease("wh_a", "r2", T0.plusSeconds(100), T0.plusSeconds(160))).as("paused").isFalse();

        assertThat(store.resume("globex", "wh_a")).as("another tenant's").isFalse();
        assertThat(store.resume("acme", "wh_a")).isTrue();
        assertThat(store.lease("wh_a", "r2", T0.plusSeconds(100), T0.plusSeconds(160))).isTrue();
        head = store.head("wh_a").orElseThrow();
        store.delivered("wh_a", head, new WebhookStore.Attempt(head.changeId(), head.kind(), head.attempts() + 1, 200, null,
                T0.plusSeconds(100)), 2);
        seen.add(store.find("wh_a").toString());
        seen.add(store.head("wh_a").toString());
        seen.add(store.deliveries("wh_a", 10).toString() + " " + store.deliveries("wh_a", 1));
        assertThat(store.enqueue(List.of(change(1, 11, "acme", "upserted"), change(1, 13, "acme", "expired")),
                T0.plusSeconds(101))).as("read again after a crash, once delivered too").isZero();

        assertThat(store.delete("globex", "wh_a")).isFalse();
        assertThat(store.delete("acme", "wh_b")).isTrue();
        assertThat(store.delete("acme", "wh_b")).isFalse();
        store.deleteTenant("globex");
        seen.add(store.list("acme") + " " + store.list("globex") + " " + store.find("wh_g") + " " + store.head("wh_b")
                + " " + store.deliveries("wh_b", 10));
        return seen;
    }
}
