package io.engram.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * One webhook's sender on a clock the test moves, over the in-memory store and a real HTTP receiver: the pause
 * after failing for too long, the backoff it records, and another replica's lease keeping it off.
 */
class WebhookSenderTest {

    private static final Instant T0 = Instant.parse("2026-12-07T12:00:00Z");

    /** A clock that stands still until the test moves it. */
    private static final class MovedClock extends Clock {
        private volatile Instant now = T0;

        void move(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    @AutoClose
    private final WebhookReceiver receiver = new WebhookReceiver();
    private final InMemoryWebhookStore store = new InMemoryWebhookStore();
    private final MovedClock clock = new MovedClock();

    private WebhookSender sender(String owner) {
        Properties p = new Properties();
        p.putAll(Map.of("webhooks.pause-after-failures", "100", "webhooks.pause-after-ms", "60000",
                "webhooks.backoff-initial-ms", "1000", "webhooks.backoff-max-ms", "8000"));
        return new WebhookSender(store, ServiceConfig.from(p, Map.of()).webhooks(), clock, owner);
    }

    private String webhookWithOneChange() throws Exception {
        store.create(new WebhookStore.Webhook("wh_1", "acme", receiver.url("/hook"), Set.of(), "", "secret", T0));
        store.enqueue(List.of(new WebhookStore.Change(0, 1, "acme", "a".repeat(32), "deleted", "{\"n\": 1}")), T0);
        return "wh_1";
    }

    @Test
    void aWebhookFailingForLongerThanTheSettingIsPausedBeforeItsFailuresInARowWouldPauseIt() throws Exception {
        String id = webhookWithOneChange();
        receiver.answer = path -> 503;
        WebhookSender sender = sender("r1");

        sender.drain(id, () -> true);
        WebhookStore.State first = store.find(id).orElseThrow().state();
        assertThat(first.pause()).isNull();
        assertThat(first.failuresInRow()).isEqualTo(1);
        assertThat(first.failingSince()).isEqualTo(T0);
        assertThat(first.nextAttemptAt()).as("1 s, less up to half of it").isBetween(T0.plusMillis(501), T0.plusSeconds(1));

        clock.move(Duration.ofSeconds(59));
        sender.drain(id, () -> true);
        assertThat(store.find(id).orElseThrow().state().pause()).isNull();
        clock.move(Duration.ofSeconds(1));
        sender.drain(id, () -> true);
        WebhookStore.State paused = store.find(id).orElseThrow().state();
        assertThat(paused.pause()).isEqualTo(new WebhookStore.Pause(T0.plusSeconds(60), "HTTP 503 from " + receiver.url("/hook")));
        assertThat(paused.failuresInRow()).isEqualTo(3);

        sender.drain(id, () -> true);
        assertThat(receiver.received).as("a paused webhook is not sent").hasSize(3);
        assertThat(store.deliveries(id, 10)).extracting(WebhookStore.Attempt::attempt).containsExactly(3, 2, 1);
    }

    @Test
    void anotherReplicasLeaseKeepsTheSenderOffUntilItRunsOut() throws Exception {
        String id = webhookWithOneChange();
        assertThat(store.lease(id, "r2", T0, T0.plusSeconds(60))).isTrue();
        WebhookSender sender = sender("r1");

        sender.drain(id, () -> true);
        assertThat(receiver.received).isEmpty();
        clock.move(Duration.ofSeconds(61));
        sender.drain(id, () -> true);
        assertThat(receiver.acknowledged("/hook")).containsExactly("a".repeat(32));
        assertThat(store.find(id).orElseThrow().state().pending()).isZero();
        assertThat(store.find(id).orElseThrow().state().lastDeliveredAt()).isEqualTo(T0.plusSeconds(61));
    }
}
