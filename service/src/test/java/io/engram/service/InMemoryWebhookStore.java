package io.engram.service;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@link WebhookStore} in memory, for the service's unit tests; {@link WebhookStoreContractTest} holds it to
 * {@link PostgresWebhookStore}.
 */
final class InMemoryWebhookStore implements WebhookStore {

    /** A webhook's rows: its registration, where delivery stands, its lease, its queue and its log. */
    private static final class Held {
        final Webhook webhook;
        Pause pause;
        int failuresInRow;
        Instant failingSince;
        Instant nextAttemptAt;
        Instant lastDeliveredAt;
        String leaseOwner;
        Instant leaseUntil;
        final TreeMap<String, Queued> queue = new TreeMap<>();
        final Map<Integer, Long> nextOffsets = new TreeMap<>();
        final List<Attempt> log = new ArrayList<>();

        Held(Webhook webhook) {
            this.webhook = webhook;
        }

        Registered registered() {
            return new Registered(webhook, new State(pause, failuresInRow, failingSince, nextAttemptAt, lastDeliveredAt,
                    queue.size()));
        }
    }

    private final Map<String, Held> webhooks = new LinkedHashMap<>();

    /** Queue order: partition, then offset. */
    private static String position(int partition, long offset) {
        return String.format("%010d/%019d", partition, offset);
    }

    @Override
    public synchronized void create(Webhook webhook) {
        if (webhooks.putIfAbsent(webhook.webhookId(), new Held(webhook)) != null) {
            throw new IllegalStateException("webhook " + webhook.webhookId() + " exists");
        }
    }

    @Override
    public synchronized List<Registered> list(String tenantId) {
        return webhooks.values().stream().filter(h -> h.webhook.tenantId().equals(tenantId))
                .sorted(Comparator.comparing((Held h) -> h.webhook.createdAt()).thenComparing(h -> h.webhook.webhookId()))
                .map(Held::registered).toList();
    }

    @Override
    public synchronized Optional<Registered> find(String webhookId) {
        return Optional.ofNullable(webhooks.get(webhookId)).map(Held::registered);
    }

    private Optional<Held> of(String tenantId, String webhookId) {
        return Optional.ofNullable(webhooks.get(webhookId)).filter(h -> h.webhook.tenantId().equals(tenantId));
    }

    @Override
    public synchronized boolean delete(String tenantId, String webhookId) {
        return of(tenantId, webhookId).map(h -> webhooks.remove(webhookId)).isPresent();
    }

    @Override
    public synchronized boolean resume(String tenantId, String webhookId) {
        Optional<Held> held = of(tenantId, webhookId);
        held.ifPresent(h -> {
            h.pause = null;
            h.failuresInRow = 0;
            h.failingSince = null;
            h.nextAttemptAt = null;
        });
        return held.isPresent();
    }

    @Override
    public synchronized void deleteTenant(String tenantId) {
        webhooks.values().removeIf(h -> h.webhook.tenantId().equals(tenantId));
    }

    @Override
    public synchronized List<Attempt> deliveries(String webhookId, int limit) {
        List<Attempt> log = new ArrayList<>(webhooks.containsKey(webhookId) ? webhooks.get(webhookId).log : List.of());
        java.util.Collections.reverse(log);
        return List.copyOf(log.subList(0, Math.min(limit, log.size())));
    }

    @Override
    public synchronized int enqueue(List<Change> changes, Instant at) {
        int added = 0;
        for (Change c : changes) {
            for (Held h : webhooks.values()) {
                boolean takes = h.webhook.tenantId().equals(c.tenantId())
                        && (h.webhook.kinds().isEmpty() || h.webhook.kinds().contains(c.kind()))
                        && h.nextOffsets.getOrDefault(c.partition(), 0L) <= c.offset();
                if (takes) {
                    h.nextOffsets.merge(c.partition(), c.offset() + 1, Math::max);
                    if (h.queue.putIfAbsent(position(c.partition(), c.offset()),
                            new Queued(c.partition(), c.offset(), c.changeId(), c.kind(), c.body(), 0)) == null) {
                        added++;
                    }
                }
            }
        }
        return added;
    }

    @Override
    public synchronized List<String> due(String owner, Instant now, int limit) {
        return webhooks.values().stream()
                .filter(h -> h.pause == null && !h.queue.isEmpty() && (h.nextAttemptAt == null || !h.nextAttemptAt.isAfter(now))
                        && leasable(h, owner, now))
                .sorted(Comparator.comparing((Held h) -> h.leaseUntil, Comparator.nullsFirst(Comparator.naturalOrder()))
                        .thenComparing(h -> h.webhook.webhookId()))
                .limit(limit).map(h -> h.webhook.webhookId()).toList();
    }

    private static boolean leasable(Held h, String owner, Instant now) {
        return h.leaseOwner == null || h.leaseOwner.equals(owner) || h.leaseUntil.isBefore(now);
    }

    @Override
    public synchronized boolean lease(String webhookId, String owner, Instant now, Instant until) {
        Held h = webhooks.get(webhookId);
        if (h == null || h.pause != null || !leasable(h, owner, now)) {
            return false;
        }
        h.leaseOwner = owner;
        h.leaseUntil = until;
        return true;
    }

    @Override
    public synchronized void release(String webhookId, String owner) {
        Held h = webhooks.get(webhookId);
        if (h != null && owner.equals(h.leaseOwner)) {
            h.leaseOwner = null;
        }
    }

    @Override
    public synchronized Optional<Queued> head(String webhookId) {
        Held h = webhooks.get(webhookId);
        return h == null || h.queue.isEmpty() ? Optional.empty() : Optional.of(h.queue.firstEntry().getValue());
    }

    @Override
    public synchronized void delivered(String webhookId, Queued change, Attempt attempt, int keep) {
        Held h = webhooks.get(webhookId);
        if (h != null) {
            h.queue.remove(position(change.partition(), change.offset()));
            h.failuresInRow = 0;
            h.failingSince = null;
            h.nextAttemptAt = null;
            h.lastDeliveredAt = attempt.at();
            log(h, attempt, keep);
        }
    }

    @Override
    public synchronized void failed(String webhookId, Queued change, Attempt attempt, Instant nextAttempt, Pause pause,
                                    int keep) {
        Held h = webhooks.get(webhookId);
        if (h != null) {
            h.queue.computeIfPresent(position(change.partition(), change.offset()), (k, q) -> new Queued(q.partition(),
                    q.offset(), q.changeId(), q.kind(), q.body(), q.attempts() + 1));
            h.failuresInRow++;
            h.failingSince = h.failingSince == null ? attempt.at() : h.failingSince;
            h.nextAttemptAt = nextAttempt;
            h.pause = pause != null ? pause : h.pause;
            log(h, attempt, keep);
        }
    }

    private static void log(Held h, Attempt attempt, int keep) {
        h.log.add(attempt);
        while (h.log.size() > keep) {
            h.log.remove(0);
        }
    }

    @Override
    public void close() {
    }
}
