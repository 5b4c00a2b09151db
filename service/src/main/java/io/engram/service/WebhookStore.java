package io.engram.service;

import java.sql.SQLException;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where webhooks, their queues of changes to deliver and their delivery logs live ({@link PostgresWebhookStore}:
 * sql/migrations/V6__webhooks.sql). The registration API ({@link Webhooks}) and the {@link WebhookDispatcher} share
 * it; every time comes in as an argument, so replicas agree through the rows alone.
 */
interface WebhookStore extends AutoCloseable {

    /** A webhook as registered; {@code kinds} (held sorted) empty is every change kind. */
    record Webhook(String webhookId, String tenantId, String url, Set<String> kinds, String description, String secret,
                   Instant createdAt) {
        public Webhook {
            kinds = Collections.unmodifiableSortedSet(new TreeSet<>(kinds));
        }
    }

    /** Why and since when delivery was paused. */
    record Pause(Instant since, String reason) {
    }

    /**
     * Where its delivery stands: paused or not, failures of the change at the head in a row and since when it fails,
     * no attempt before {@code nextAttemptAt} (null: at once), the last delivery, changes waiting.
     */
    record State(Pause pause, int failuresInRow, Instant failingSince, Instant nextAttemptAt, Instant lastDeliveredAt,
                 long pending) {
    }

    record Registered(Webhook webhook, State state) {
    }

    /** A change read from the change feed: where it was in the topic, whose it is, its id and kind, its JSON. */
    record Change(int partition, long offset, String tenantId, String changeId, String kind, String body) {
    }

    /** A change in a webhook's queue, with the attempts made to deliver it. */
    record Queued(int partition, long offset, String changeId, String kind, String body, int attempts) {
    }

    /** One attempt: the receiver's status (null when none answered) or the error, when it was made. */
    record Attempt(String changeId, String kind, int attempt, Integer status, String error, Instant at) {
        boolean delivered() {
            return error == null;
        }
    }

    void create(Webhook webhook) throws SQLException;

    /** The tenant's webhooks, oldest first. */
    List<Registered> list(String tenantId) throws SQLException;

    Optional<Registered> find(String webhookId) throws SQLException;

    /** Deletes the tenant's webhook with its queue and log; false when the tenant has no such webhook. */
    boolean delete(String tenantId, String webhookId) throws SQLException;

    /** Unpauses the tenant's webhook, its failures forgotten, its next attempt at once; false when there is none. */
    boolean resume(String tenantId, String webhookId) throws SQLException;

    /** Deletes every webhook of the tenant. */
    void deleteTenant(String tenantId) throws SQLException;

    /** The newest {@code limit} attempts of the webhook, newest first. */
    List<Attempt> deliveries(String webhookId, int limit) throws SQLException;

    /**
     * Queues each change for every webhook of its tenant whose kinds take it, paused ones included (a resumed
     * webhook continues where it stopped). A webhook remembers the next offset of each partition it queued: a change
     * below it was queued before, and is not queued again even once delivered. Returns the rows added.
     */
    int enqueue(List<Change> changes, Instant at) throws SQLException;

    /**
     * Up to {@code limit} webhooks not paused, with changes waiting, due by {@code now} and leased to no one else,
     * those sent least recently (by their last lease's end) first, so a long queue does not starve the others.
     */
    List<String> due(String owner, Instant now, int limit) throws SQLException;

    /**
     * Takes or renews the lease of a webhook not paused until {@code until}: when no one holds it, it expired by
     * {@code now}, or {@code owner} holds it. False when another replica holds it or it is paused or gone.
     */
    boolean lease(String webhookId, String owner, Instant now, Instant until) throws SQLException;

    /** Gives the lease up; its end stays, as when the webhook was last sent. */
    void release(String webhookId, String owner) throws SQLException;

    /** The first change of the webhook's queue. */
    Optional<Queued> head(String webhookId) throws SQLException;

    /** The change was delivered: out of the queue, failures cleared, the attempt logged (the newest {@code keep}). */
    void delivered(String webhookId, Queued change, Attempt attempt, int keep) throws SQLException;

    /**
     * The attempt failed: it counts, the next is not before {@code nextAttempt}, the webhook is paused when
     * {@code pause} is not null, the attempt logged (the newest {@code keep}).
     */
    void failed(String webhookId, Queued change, Attempt attempt, Instant nextAttempt, Pause pause, int keep)
            throws SQLException;

    @Override
    void close();
}
