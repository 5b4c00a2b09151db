package io.engram.service;

import io.engram.client.KafkaClients;
import java.sql.SQLException;
import java.time.Clock;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers the change feed to the tenants' webhooks (docs/operations.md, "Webhooks"): a {@link WebhookIntake}
 * thread queues each change for the webhooks that take it, and every {@code webhooks.poll-ms} the webhooks due are
 * handed to {@code webhooks.senders} threads, each draining one webhook's queue in order ({@link WebhookSender}).
 * Replicas share the work through PostgreSQL: the consumer group splits the feed's partitions, and a webhook's
 * lease lets one replica at a time send it. The intake and the senders each hold a connection of their own.
 */
final class WebhookDispatcher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WebhookDispatcher.class);

    private final WebhookSettings settings;
    private final WebhookStore intakeStore;
    private final WebhookStore sendStore;
    private final WebhookIntake intake;
    private final Thread intakeThread;
    private final WebhookSender sender;
    private final String owner = "replica-" + UUID.randomUUID();
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService scheduler;
    private final ExecutorService senders;
    private final Clock clock;
    private volatile boolean closing;

    private WebhookDispatcher(KafkaClients kafka, WebhookSettings settings, Supplier<WebhookStore> stores, Clock clock) {
        this.settings = settings;
        this.clock = clock;
        this.intakeStore = stores.get();
        this.sendStore = stores.get();
        this.intake = new WebhookIntake(kafka, settings.group(), intakeStore, clock);
        this.intakeThread = new Thread(intake, "engram-webhooks-intake");
        this.sender = new WebhookSender(sendStore, settings, clock, owner);
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "engram-webhooks-scheduler"));
        this.senders = Executors.newFixedThreadPool(settings.senders(), r -> new Thread(r, "engram-webhooks-sender"));
    }

    /** Starts reading {@code kafka}'s change feed and delivering it; {@code stores} opens a store per connection. */
    static WebhookDispatcher start(KafkaClients kafka, WebhookSettings settings, Supplier<WebhookStore> stores,
                                   Clock clock) {
        WebhookDispatcher dispatcher = new WebhookDispatcher(kafka, settings, stores, clock);
        dispatcher.intakeThread.start();
        long poll = settings.poll().toMillis();
        dispatcher.scheduler.scheduleWithFixedDelay(dispatcher::dispatchDue, poll, poll, TimeUnit.MILLISECONDS);
        return dispatcher;
    }

    /** Hands each webhook due, and not being sent by this replica already, to a sender. */
    private void dispatchDue() {
        try {
            for (String webhookId : sendStore.due(owner, clock.instant(), settings.senders() * 2)) {
                if (inFlight.add(webhookId)) {
                    senders.execute(() -> send(webhookId));
                }
            }
        } catch (SQLException e) {
            LOG.warn("webhooks: looking for queues due failed: {}", e.toString());
        } catch (RejectedExecutionException e) {
            // closing: the webhooks left are sent by the next replica or start
        } catch (RuntimeException e) {
            // a scheduled task that throws is never run again: log it and look again at the next poll
            LOG.error("webhooks: looking for queues due failed", e);
        }
    }

    private void send(String webhookId) {
        try {
            sender.drain(webhookId, () -> !closing);
        } catch (SQLException e) {
            LOG.warn("webhooks: sending {} failed on PostgreSQL: {}", webhookId, e.toString());
        } catch (RuntimeException e) {
            LOG.error("webhooks: sending {} failed", webhookId, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                sendStore.release(webhookId, owner);
            } catch (SQLException e) {
                LOG.warn("webhooks: releasing {} failed; its lease runs out instead: {}", webhookId, e.toString());
            } finally {
                inFlight.remove(webhookId);
            }
        }
    }

    /**
     * Stops: reading at once (what was read and not committed is read again by the next reader), sending once the
     * attempts under way are answered and recorded, within the delivery timeout.
     */
    @Override
    public void close() {
        closing = true;
        intake.close();
        scheduler.shutdownNow();
        senders.shutdown();
        try {
            if (!senders.awaitTermination(settings.timeout().toMillis() + 1000, TimeUnit.MILLISECONDS)) {
                senders.shutdownNow();
            }
            intakeThread.join(settings.timeout().toMillis());
        } catch (InterruptedException e) {
            senders.shutdownNow();
            Thread.currentThread().interrupt();
        } finally {
            intakeStore.close();
            sendStore.close();
        }
    }
}
