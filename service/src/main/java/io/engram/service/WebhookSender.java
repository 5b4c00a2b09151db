package io.engram.service;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers one webhook's queue, strictly in order: the change at the head is POSTed, signed ({@link WebhookSignature}),
 * until a 2xx answers it; only then is the next one sent. Each attempt is logged; a failure waits its backoff and,
 * past the settings' failures or time, pauses the webhook with its reason. The webhook's lease is renewed before
 * each attempt, so no other replica sends it meanwhile.
 */
final class WebhookSender {

    /** Changes sent in one turn before the webhook's lease is given up for the others waiting. */
    static final int TURN = 100;
    private static final Logger LOG = LoggerFactory.getLogger(WebhookSender.class);

    /** What an attempt came to: the receiver's status (null when none answered) and, when it failed, why. */
    private record Outcome(Integer status, String error) {
    }

    private final WebhookStore store;
    private final WebhookSettings settings;
    private final Clock clock;
    private final String owner;
    private final RandomGenerator random = RandomGenerator.getDefault();
    private final HttpClient http;

    WebhookSender(WebhookStore store, WebhookSettings settings, Clock clock, String owner) {
        this.store = store;
        this.settings = settings;
        this.clock = clock;
        this.owner = owner;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(settings.timeout())
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /**
     * Sends the webhook's changes until its queue is empty, an attempt fails, a turn is done, the lease is lost or
     * {@code going} turns false. The lease is renewed once half of it is gone: an attempt, shorter than the timeout,
     * less than half the lease, always ends within it.
     */
    void drain(String webhookId, BooleanSupplier going) throws SQLException, InterruptedException {
        Instant now = clock.instant();
        if (!store.lease(webhookId, owner, now, now.plus(settings.lease()))) {
            return;
        }
        Instant renewAt = now.plus(settings.lease().dividedBy(2));
        Optional<WebhookStore.Registered> found = store.find(webhookId);
        if (found.isEmpty()) {
            return;
        }
        WebhookStore.Webhook webhook = found.get().webhook();
        WebhookStore.State state = found.get().state();
        for (int sent = 0; sent < TURN && going.getAsBoolean(); sent++) {
            now = clock.instant();
            if (now.isAfter(renewAt)) {
                if (!store.lease(webhookId, owner, now, now.plus(settings.lease()))) {
                    return;
                }
                renewAt = now.plus(settings.lease().dividedBy(2));
            }
            Optional<WebhookStore.Queued> head = store.head(webhookId);
            // after a delivery, no failure is in a row any more
            if (head.isEmpty() || !attempt(webhook, sent == 0 ? state.failuresInRow() : 0,
                    sent == 0 ? state.failingSince() : null, head.get())) {
                return;
            }
        }
    }

    /** One attempt at the change after {@code failures} in a row since {@code failingSince}, recorded; true when delivered. */
    private boolean attempt(WebhookStore.Webhook webhook, int failures, Instant failingSince, WebhookStore.Queued change)
            throws SQLException, InterruptedException {
        Outcome outcome = post(webhook, change);
        String webhookId = webhook.webhookId();
        WebhookStore.Attempt attempt = new WebhookStore.Attempt(change.changeId(), change.kind(), change.attempts() + 1,
                outcome.status(), outcome.error(), clock.instant());
        if (attempt.delivered()) {
            store.delivered(webhookId, change, attempt, settings.logSize());
            return true;
        }
        int inRow = failures + 1;
        Instant since = failingSince == null ? attempt.at() : failingSince;
        boolean giveUp = inRow >= settings.pauseAfterFailures() || !attempt.at().isBefore(since.plus(settings.pauseAfter()));
        WebhookStore.Pause pause = giveUp ? new WebhookStore.Pause(attempt.at(), outcome.error()) : null;
        store.failed(webhookId, change, attempt, attempt.at().plus(settings.backoff(inRow, random.nextDouble())), pause,
                settings.logSize());
        if (giveUp) {
            LOG.warn("webhook {} of tenant {} paused after {} failures in a row: {}", webhookId, webhook.tenantId(), inRow,
                    outcome.error());
        }
        return false;
    }

    private Outcome post(WebhookStore.Webhook webhook, WebhookStore.Queued change) throws InterruptedException {
        HttpRequest request;
        try {
            request = request(webhook, change);
        } catch (IllegalArgumentException e) {
            return new Outcome(null, "cannot send to " + webhook.url() + ": " + e.getMessage());
        }
        String to = webhook.url();
        try {
            int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
            return new Outcome(status, status / 100 == 2 ? null : "HTTP " + status + " from " + to);
        } catch (HttpConnectTimeoutException e) {
            return new Outcome(null, "no connection to " + to + " within " + settings.timeout().toMillis() + " ms");
        } catch (HttpTimeoutException e) {
            return new Outcome(null, "no answer from " + to + " within " + settings.timeout().toMillis() + " ms");
        } catch (ConnectException e) {
            return new Outcome(null, "cannot connect to " + to + ": " + reason(e));
        } catch (IOException e) {
            return new Outcome(null, "failed sending to " + to + ": " + reason(e));
        }
    }

    /** The change's POST, signed as sent now. */
    private HttpRequest request(WebhookStore.Webhook webhook, WebhookStore.Queued change) {
        long timestamp = clock.instant().getEpochSecond();
        return HttpRequest.newBuilder(URI.create(webhook.url())).timeout(settings.timeout())
                .header("Content-Type", "application/json")
                .header("User-Agent", "engram-webhooks/1")
                .header(WebhookSignature.CHANGE_ID, change.changeId())
                .header(WebhookSignature.TIMESTAMP, String.valueOf(timestamp))
                .header(WebhookSignature.SIGNATURE, WebhookSignature.header(webhook.secret(), timestamp, change.body()))
                .POST(HttpRequest.BodyPublishers.ofString(change.body())).build();
    }

    /** The first message along the causes ("Connection refused"), else the innermost failure's name. */
    private static String reason(Throwable failure) {
        Throwable t = failure;
        while (t.getMessage() == null && t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
    }
}
